// Mixed versions: during a rolling deploy old and new code run side by side, so every consumer must
// read every message an older producer still sends. libs/contracts/fixtures/messages/<topic>/<name>.json holds
// one committed example of every message shape produced on every topic; message-fixtures.test.ts runs each
// through the parse function its consumer uses on receipt, and fails when a producer can make a shape that has
// no fixture. This module builds today's messages with the producers' own code (OrderCommands in
// order-event-fixtures.ts, sessions' sessionEventMessage in session-event-fixtures.ts, the dispatcher's
// WebhookPublisher and orders' ReportEventsProducer here) and reads and writes the fixture files;
// `npm run fixtures` (scripts/fixtures.ts) adds the fixtures of shapes that have none.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOPICS, WEBHOOK_RETRY_TIERS, newId } from '@checkout/contracts';
import type { EventProducer, OutgoingMessage } from '@checkout/kafka';
import { shapeOf } from '@checkout/testing';
import { ReportEventsProducer, type ReportDocument } from '@checkout/orders/testing';
import { WebhookPublisher, type DeliveryDocument } from '@checkout/webhook-dispatcher/testing';
import { orderEvents } from './order-event-fixtures';
import { MODE, NOW, SCOPE, toFixture, type MessageFixture, type ProducedMessage } from './produced-message';
import { sessionEvents } from './session-event-fixtures';

export type { MessageFixture } from './produced-message';

export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../libs/contracts/fixtures/messages');

/** Every fixture committed under FIXTURES_DIR, by topic (the directory's name). */
export function readFixtures(): Array<{ topic: string; name: string; fixture: MessageFixture }> {
  const found: Array<{ topic: string; name: string; fixture: MessageFixture }> = [];
  for (const topic of readdirSync(FIXTURES_DIR).sort()) {
    for (const file of readdirSync(join(FIXTURES_DIR, topic))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      found.push({
        topic,
        name: file.replace(/\.json$/, ''),
        fixture: JSON.parse(readFileSync(join(FIXTURES_DIR, topic, file), 'utf8')) as MessageFixture,
      });
    }
  }
  return found;
}

/** The shape of a whole fixture: key, header names and value. */
export function fixtureShape(fixture: MessageFixture): string {
  return `${typeof fixture.key}|${Object.keys(fixture.headers ?? {})
    .sort()
    .join(',')}|${shapeOf(fixture.value)}`;
}

// ---- webhooks.retry.N and webhooks.dead-letter: the dispatcher's WebhookPublisher ------------------------

async function webhookMessages(): Promise<ProducedMessage[]> {
  const sent: OutgoingMessage[] = [];
  const producer: EventProducer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    send: (messages) => Promise.resolve(void sent.push(...messages)),
  };
  const publisher = new WebhookPublisher(producer, '');
  const produced: ProducedMessage[] = [];
  const take = (name: string, producedBy: string): void => {
    const message = sent.shift();
    if (!message) throw new Error(`fixtures: ${producedBy} sent nothing`);
    produced.push({ topic: message.topic, name, fixture: toFixture(message, producedBy) });
  };
  for (const tier of WEBHOOK_RETRY_TIERS) {
    await publisher.publishRetry({
      deliveryId: newId('dlv', MODE),
      attempt: tier + 1,
      notBefore: new Date(NOW.getTime() + tier * 60_000).toISOString(),
    });
    take(`retry.attempt-${tier + 1}`, `webhook-dispatcher: WebhookPublisher.publishRetry after failed attempt ${tier}`);
  }
  const delivery = (error: string | null): DeliveryDocument => ({
    _id: newId('dlv', MODE),
    ...SCOPE,
    eventId: newId('evt', MODE),
    eventType: 'checkout.session.completed',
    url: 'https://merchant.example.com/webhooks',
    status: 'failed',
    attempts: [
      { attempt: 5, at: NOW, statusCode: error === null ? 500 : null, durationMs: 120, error, responseSnippet: null },
    ],
    attemptCount: 5,
    nextAttemptAt: null,
    lockedUntil: NOW,
    lockOwner: null,
    deadLetterPending: true,
    createdAt: NOW,
    updatedAt: NOW,
  });
  await publisher.publishDeadLetter(delivery('connect ECONNREFUSED'), NOW);
  take(
    'delivery-failed.with-error',
    'webhook-dispatcher: WebhookPublisher.publishDeadLetter, last attempt had no response',
  );
  await publisher.publishDeadLetter(delivery(null), NOW);
  take(
    'delivery-failed.without-error',
    'webhook-dispatcher: WebhookPublisher.publishDeadLetter, last attempt answered without an error text',
  );
  await publisher.publishDeadLetter({ ...delivery('HTTP 500'), endpointId: newId('we', MODE) }, NOW);
  take(
    'delivery-failed.to-endpoint',
    "webhook-dispatcher: WebhookPublisher.publishDeadLetter, a delivery to a merchant's webhook endpoint (D50)",
  );
  return produced;
}

/**
 * A message a consumer could not parse, parked on the dead-letter topic by libs/kafka (parkOnDeadLetter in
 * consumer.ts, internal to the lib): the original key and value with these two headers. Built here as that
 * function builds it; the value is a session event whose body id differs from its eventId.
 */
function parkedPoison(): ProducedMessage {
  const sessionId = newId('cs', MODE);
  const value = {
    version: 1,
    eventId: newId('evt', MODE),
    type: 'checkout.session.completed',
    sessionId,
    body: { id: newId('evt', MODE) },
  };
  return {
    topic: TOPICS.webhookDeadLetter,
    name: 'parked-poison',
    fixture: toFixture(
      {
        topic: TOPICS.webhookDeadLetter,
        key: sessionId,
        value: JSON.stringify(value),
        headers: { 'x-original-topic': TOPICS.sessionEvents, 'x-failure-reason': 'body.id: must equal eventId' },
      },
      'libs/kafka: parkOnDeadLetter, a message its consumer could not parse',
    ),
  };
}

/** Every message shape the producers of today make, built by their own code. */
export async function produceAll(): Promise<ProducedMessage[]> {
  return [
    ...(await orderEvents()),
    ...reportEvents(),
    ...sessionEvents(),
    ...(await webhookMessages()),
    parkedPoison(),
  ];
}

/** D52's report events on reports.public-events, from orders' ReportEventsProducer: a report succeeded, one failed. */
function reportEvents(): ProducedMessage[] {
  const producer = new ReportEventsProducer({ publishWritten: () => Promise.resolve(0) }, TOPICS.reportEvents);
  const report: ReportDocument = {
    _id: newId('rpt', MODE),
    ...SCOPE,
    type: 'balance_transactions',
    status: 'pending',
    createdAfter: new Date('2026-01-01T00:00:00.000Z'),
    createdBefore: new Date('2026-01-15T00:00:00.000Z'),
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 30 * 24 * 3_600_000),
    attempts: 1,
    outbox: [],
    outboxPending: false,
  };
  const ended: Array<[string, Partial<ReportDocument>]> = [
    ['report.succeeded', { status: 'succeeded', rows: 2, asOf: NOW, fileId: `${report._id}.1` }],
    ['report.failed', { status: 'failed', failureReason: 'internal_error' }],
  ];
  return ended.map(([name, outcome]) => {
    const [entry] = producer.withEvent({ ...report, ...outcome }, NOW).outbox;
    if (!entry) throw new Error(`fixtures: ReportEventsProducer wrote no ${name} event`);
    const message = { topic: entry.topic, key: entry.key, value: entry.value, headers: { 'event-id': entry.eventId } };
    return { topic: TOPICS.reportEvents, name, fixture: toFixture(message, 'orders ReportEventsProducer.withEvent') };
  });
}
