import { afterAll, beforeAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { MongoClient } from '@checkout/mongo';
import { createEventProducer, createKafka, type EventProducer, type KafkaClient } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import type { CommandCounter } from '@checkout/mongo/testing';
import { createLogger } from '@checkout/logger';
import { internalCallers, newSecret, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import {
  TOPICS,
  topicName,
  type EventResponse,
  type Mode,
  type SessionEventV1,
  type WebhookEndpointSecretResponse,
  type WebhookEndpointWithSecret,
} from '@checkout/contracts';
import { buildApp, type BuildOptions, type WebhookDispatcherApp } from '../../src/app';
import { parseConfig, type Config } from '../../src/config';

/** The dispatcher's own credential (it calls the gateway for signing secrets, D35). */
export const INTERNAL_TOKEN = newSecret();
/** The gateway's credential, with which tests call the events API as the gateway does. */
const GATEWAY_TOKEN = newSecret();

export function engines(): { brokers: string; mongoUrl: string } {
  const brokers = process.env.KAFKA_BROKERS;
  const mongoUrl = process.env.MONGODB_URL;
  if (!brokers || !mongoUrl)
    throw new Error('KAFKA_BROKERS and MONGODB_URL must be set (vitest globalSetup provides them)');
  return { brokers, mongoUrl };
}

export function uniqueName(label: string): string {
  return `wd_${label}_${randomBytes(4).toString('hex')}`;
}

/** Environment for one dispatcher under test: its own database and topic prefix; loopback allowed unless overridden. */
export function dispatcherEnv(label: string, overrides: Record<string, string> = {}): Record<string, string> {
  const { brokers, mongoUrl } = engines();
  const name = uniqueName(label);
  return {
    MONGODB_URL: mongoUrl,
    MONGODB_DATABASE: name,
    KAFKA_BROKERS: brokers,
    TOPIC_PREFIX: name,
    INTERNAL_TOKEN,
    INTERNAL_CALLERS: internalCallers({ gateway: GATEWAY_TOKEN }),
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SESSION_EVENTS_PARTITIONS: '3',
    WEBHOOK_RETRY_PARTITIONS: '2',
    WEBHOOK_RETRY_DELAYS_MS: '50,100,150,200',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_CLAIM_TTL_MS: '10000',
    WEBHOOK_RECOVERY_INTERVAL_MS: '500',
    SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
  };
}

/** Attempts that hang stay open for a whole file (and keep their holds): what others get meanwhile is counted. */
export const HANGING_STAYS_OPEN = { WEBHOOK_TIMEOUT_MS: '30000', WEBHOOK_CLAIM_TTL_MS: '60000' } as const;

export interface RunningDispatcher {
  app: WebhookDispatcherApp;
  config: Config;
  url: string;
  stop(): Promise<void>;
}

/** buildApp's options, and a counter of the database commands the dispatcher sends (round-trip budgets). */
export interface StartOptions extends BuildOptions {
  commandCounter?: CommandCounter;
}

export async function startDispatcher(
  env: Record<string, string>,
  { commandCounter, ...options }: StartOptions = {},
): Promise<RunningDispatcher> {
  const config = parseConfig(env);
  const logger = createLogger('webhook-dispatcher-test', { level: config.LOG_LEVEL });
  const app = buildApp(config, logger, options);
  const { url } = commandCounter ? await commandCounter.watch(() => app.start()) : await app.start();
  return { app, config, url, stop: () => app.stop() };
}

export function sessionEventsTopic(config: Config): string {
  return topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
}

export { buildSessionEvent } from '@checkout/testing';

// ------------------------------------------------------------------------------------------------------------
// Kafka helpers

export function testKafka(): KafkaClient {
  return createKafka({ clientId: 'wd-test', brokers: engines().brokers.split(',') });
}

export class TestProducer {
  private constructor(private readonly producer: EventProducer) {}

  static async connect(kafka: KafkaClient): Promise<TestProducer> {
    const producer = createEventProducer(kafka);
    await producer.connect();
    return new TestProducer(producer);
  }

  async sendEvents(topic: string, events: readonly SessionEventV1[]): Promise<void> {
    await this.producer.send(events.map((e) => ({ topic, key: e.sessionId, value: JSON.stringify(e) })));
  }

  async sendRaw(topic: string, key: string, value: string): Promise<void> {
    await this.producer.send([{ topic, key, value }]);
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }
}

/** Collects every message of a topic from the beginning (e.g. the dead-letter topic). */
export async function collectTopic(
  kafka: KafkaClient,
  topic: string,
): Promise<{
  messages: Array<{ key: string | null; value: string; headers: Record<string, string> }>;
  stop(): Promise<void>;
}> {
  const messages: Array<{ key: string | null; value: string; headers: Record<string, string> }> = [];
  const probe = await readTopic({
    kafka,
    topic,
    groupId: uniqueName('collector'),
    onMessage: ({ key, value, headers }) => messages.push({ key, value, headers }),
  });
  return { messages, stop: () => probe.stop() };
}

// ------------------------------------------------------------------------------------------------------------
// Internal API helpers

export function internalHeaders(scope: { organizationId: string; mode: Mode }): Record<string, string> {
  return {
    'x-internal-token': GATEWAY_TOKEN,
    'x-organization-id': scope.organizationId,
    'x-mode': scope.mode,
    'x-request-id': `req_${randomBytes(4).toString('hex')}`,
  };
}

/** The first delivery of an event of the default test organization, as the internal events API shows it. */
export async function firstDelivery(
  dispatcher: RunningDispatcher,
  eventId: string,
): Promise<EventResponse['deliveries'][number] | undefined> {
  const response = await fetch(`${dispatcher.url}/internal/events/${eventId}`, {
    headers: internalHeaders({ organizationId: 'org_test_dispatcher', mode: 'test' }),
  });
  return ((await response.json()) as EventResponse).deliveries[0];
}

export async function dropDatabase(config: Config): Promise<void> {
  const client = new MongoClient(config.MONGODB_URL);
  try {
    await client.connect();
    await client.db(config.MONGODB_DATABASE).dropDatabase();
  } finally {
    await client.close();
  }
}

/** The dispatcher and a producer, for files that bring their own receivers. */
export interface DispatcherWithProducer {
  dispatcher: RunningDispatcher;
  producer: TestProducer;
  /** Disconnects the producer, stops the dispatcher and drops its database. */
  stop(): Promise<void>;
}

export async function startDispatcherWithProducer(
  label: string,
  overrides: Record<string, string> = {},
  options: StartOptions = {},
): Promise<DispatcherWithProducer> {
  const dispatcher = await startDispatcher(dispatcherEnv(label, overrides), options);
  const producer = await TestProducer.connect(testKafka());
  return {
    dispatcher,
    producer,
    async stop() {
      // The broker may be down when a chaos test ends; that must not keep the rest from being cleaned up.
      await producer.disconnect().catch(() => {});
      await dispatcher.stop();
      await dropDatabase(dispatcher.config);
    },
  };
}

/** A real loopback receiver beside the dispatcher and its producer; `stop` closes the receiver last. */
export interface DispatcherFixture extends DispatcherWithProducer {
  receiver: WebhookReceiver;
}

/** A real loopback receiver, the dispatcher in-process with its own database and topics, and a producer. */
export async function startDispatcherFixture(
  ...args: Parameters<typeof startDispatcherWithProducer>
): Promise<DispatcherFixture> {
  const receiver = await startWebhookReceiver();
  const started = await startDispatcherWithProducer(...args);
  const stop = async () => {
    await started.stop();
    await receiver.close();
  };
  return { ...started, receiver, stop };
}

// ------------------------------------------------------------------------------------------------------------
// Webhook endpoints (D50)

/** A call of the internal API as the gateway makes it, with the merchant's scope. */
export async function internalCall(
  dispatcher: RunningDispatcher,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  scope: { organizationId: string; mode: Mode },
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${dispatcher.url}${path}`, {
    method,
    headers: {
      ...internalHeaders(scope),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Registers an endpoint and returns it with its secret (the only answer that shows it). */
export async function createEndpoint(
  dispatcher: RunningDispatcher,
  scope: { organizationId: string; mode: Mode },
  input: Record<string, unknown>,
): Promise<WebhookEndpointWithSecret> {
  const { status, body } = await internalCall(dispatcher, 'POST', '/internal/webhook-endpoints', scope, input);
  if (status !== 201) throw new Error(`endpoint create answered ${status}: ${JSON.stringify(body)}`);
  return (body as unknown as WebhookEndpointSecretResponse).endpoint;
}

/**
 * A dispatcher fixture for a whole file: started before its tests, stopped after them. Its parts are read when the
 * tests use them (they exist once beforeAll has run).
 */
export function useDispatcherFixture(
  label: string,
  overrides: Record<string, string> = {},
  options: StartOptions = {},
): DispatcherFixture {
  let fixture: DispatcherFixture | undefined;
  beforeAll(async () => {
    fixture = await startDispatcherFixture(label, overrides, options);
  });
  afterAll(async () => {
    await fixture?.stop();
  });
  const started = (): DispatcherFixture => {
    if (!fixture) throw new Error(`the ${label} dispatcher is used before it started`);
    return fixture;
  };
  return {
    get receiver() {
      return started().receiver;
    },
    get dispatcher() {
      return started().dispatcher;
    },
    get producer() {
      return started().producer;
    },
    stop: () => started().stop(),
  };
}
