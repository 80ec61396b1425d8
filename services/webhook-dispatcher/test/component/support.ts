import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createLogger } from '@checkout/logger';
import { SessionEventV1, TOPICS, newId, newLineId, topicName, type Mode } from '@checkout/contracts';
import { buildApp, type WebhookDispatcherApp } from '../../src/app';
import { parseConfig, type Config } from '../../src/config';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';

export function engines(): { brokers: string; mongoUrl: string } {
  const brokers = process.env.KAFKA_BROKERS;
  const mongoUrl = process.env.MONGODB_URL;
  if (!brokers || !mongoUrl) throw new Error('KAFKA_BROKERS and MONGODB_URL must be set (vitest globalSetup provides them)');
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

export interface RunningDispatcher {
  app: WebhookDispatcherApp;
  config: Config;
  url: string;
  stop(): Promise<void>;
}

export async function startDispatcher(env: Record<string, string>): Promise<RunningDispatcher> {
  const config = parseConfig(env);
  const logger = createLogger('webhook-dispatcher-test', { level: config.LOG_LEVEL });
  const app = buildApp(config, logger);
  const { url } = await app.start();
  return { app, config, url, stop: () => app.stop() };
}

export function sessionEventsTopic(config: Config): string {
  return topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
}

// ------------------------------------------------------------------------------------------------------------
// Factories

export interface SessionEventOverrides {
  mode?: Mode;
  organizationId?: string;
  callbackUrl?: string | null;
  type?: 'checkout.session.completed' | 'checkout.session.expired';
  createdAt?: string;
  /** Reuse a session id (same Kafka key, so same partition and order). */
  sessionId?: string;
  /** Extra data carried in the body, e.g. a produce timestamp for latency measurements. */
  sessionData?: Record<string, string | number>;
}

/** A valid SessionEventV1 envelope; ids are of the given mode and consistent with each other. */
export function buildSessionEvent(overrides: SessionEventOverrides = {}): SessionEventV1 {
  const mode = overrides.mode ?? 'test';
  const type = overrides.type ?? 'checkout.session.completed';
  const createdAt = overrides.createdAt ?? new Date().toISOString();
  const eventId = newId('evt', mode);
  const sessionId = overrides.sessionId ?? newId('cs', mode);
  const orderId = newId('ord', mode);
  const callbackUrl = overrides.callbackUrl === undefined ? null : overrides.callbackUrl;
  const completed = type === 'checkout.session.completed';
  const session = {
    id: sessionId,
    url: `https://checkout.example.test/${sessionId}`,
    status: completed ? 'completed' : 'expired',
    active: false,
    failedAttempts: 0,
    successUrl: null,
    callbackUrl,
    expiresAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    sessionData: { 'dotted.key': 'kept', ...(overrides.sessionData ?? {}) },
    order: {
      id: orderId,
      provider: 'native',
      currency: 'USD',
      status: completed ? 'completed' : 'open',
      paymentStatus: completed ? 'paid' : 'unpaid',
      amounts: { subtotal: 3097, tax: 0, discount: 0, tip: 0, total: 3097, paid: completed ? 3097 : 0 },
      items: [{ id: newLineId('item'), name: 'Widget', quantity: 1, unitPrice: 3097, totalPrice: 3097, itemType: 'product' }],
      taxes: [],
      discounts: [],
      metadata: { 'a.b': 'c' },
      ...(completed && { paidAt: createdAt }),
      createdAt,
      updatedAt: createdAt,
    },
  };
  const envelope = {
    version: 1,
    eventId,
    occurredAt: createdAt,
    organizationId: overrides.organizationId ?? 'org_test_dispatcher',
    mode,
    sessionId,
    callbackUrl,
    type,
    body: { id: eventId, event: type, createdAt, session },
  };
  return SessionEventV1.parse(envelope);
}

// ------------------------------------------------------------------------------------------------------------
// Kafka helpers

export function testKafka(): Kafka {
  return new Kafka({ clientId: 'wd-test', brokers: engines().brokers.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
}

export class TestProducer {
  private constructor(private readonly producer: Producer) {}

  static async connect(kafka: Kafka): Promise<TestProducer> {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    return new TestProducer(producer);
  }

  async sendEvents(topic: string, events: readonly SessionEventV1[]): Promise<void> {
    await this.producer.send({ topic, acks: -1, messages: events.map((e) => ({ key: e.sessionId, value: JSON.stringify(e) })) });
  }

  async sendRaw(topic: string, key: string, value: string): Promise<void> {
    await this.producer.send({ topic, acks: -1, messages: [{ key, value }] });
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }
}

/** Collects every message of a topic from the beginning (e.g. the dead-letter topic). */
export async function collectTopic(kafka: Kafka, topic: string): Promise<{ messages: Array<{ key: string | null; value: string; headers: Record<string, string> }>; stop(): Promise<void> }> {
  const messages: Array<{ key: string | null; value: string; headers: Record<string, string> }> = [];
  const consumer: Consumer = kafka.consumer({ groupId: uniqueName('collector') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
      messages.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? '', headers });
    },
  });
  return { messages, stop: () => consumer.disconnect() };
}

// ------------------------------------------------------------------------------------------------------------
// Internal API helpers

export function internalHeaders(scope: { organizationId: string; mode: Mode }): Record<string, string> {
  return { 'x-internal-token': INTERNAL_TOKEN, 'x-organization-id': scope.organizationId, 'x-mode': scope.mode, 'x-request-id': `req_${randomBytes(4).toString('hex')}` };
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
