// Starts the real orders app and the sessions app in-process on port 0 against the real engines (from the
// integration project's global setup), with a database and topic prefix of their own per test file.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { createKafka, topicOffsets } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { createLogger } from '@checkout/logger';
import type { CommandCounter } from '@checkout/mongo/testing';
import { buildApp as buildOrdersApp } from '@checkout/orders';
import { parseConfig as parseOrdersConfig } from '@checkout/orders/config';
import { TOPICS, encodeCheckoutSettingsHeader, topicName, type CheckoutSettingsHeader } from '@checkout/contracts';
import { internalCallers, metricValue, newSecret } from '@checkout/testing';
import { buildApp, type SessionsApp } from '../../src/app';
import { parseConfig } from '../../src/config';

/** The gateway's credential, with which tests call sessions (and orders, for reference data) as the gateway does. */
const GATEWAY_TOKEN = newSecret();
/** Sessions' own credential, with which it calls orders (each service its own). */
const SESSIONS_TOKEN = newSecret();
/** ID_DERIVATION_SECRET of every sessions app the harness starts: tests derive the ids a keyed request gets. */
export const ID_DERIVATION_SECRET = newSecret();
/** Orders' routes only sessions may call (ORDERS_INTERNAL_ROUTES); tests calling them stand in for sessions. */
const SESSIONS_ONLY = /^\/internal\/orders\/[^/]+\/(payments|close-payments)$/;
export const PROCESSOR_SECRET = newSecret();
/** The processor's secret for refund notifications to orders: its own, so a leak of sessions' settles no refund. */
export const PROCESSOR_REFUND_SECRET = newSecret();
const CSRF_SECRET = newSecret();

export interface Tenant {
  organizationId: string;
  mode: 'test' | 'live';
  settings?: CheckoutSettingsHeader;
}

interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

/** A clock that tests can move forward; shared by every sessions replica of a stack. */
class TestClock {
  offsetMs = 0;
  now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export function uniqueName(label: string): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}

export function newTenant(overrides: Partial<Tenant> = {}): Tenant {
  return {
    organizationId: uniqueName('org'),
    mode: 'test',
    settings: {
      organizationName: 'Acme Coffee',
      defaultCallbackUrl: null,
      enabledPaymentMethods: ['card', 'stablecoin', 'stored_value'],
    },
    ...overrides,
  };
}

export interface Stack {
  ordersUrl: string;
  sessionsUrl: string;
  clock: TestClock;
  topicPrefix: string;
  sessionEventsTopic: string;
  kafkaBrokers: string[];
  /** Call the sessions internal API as the gateway would. */
  api<T = any>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    tenant: Tenant | null,
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<ApiResponse<T>>;
  /** Call the orders internal API directly. */
  orders<T = any>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    tenant: Tenant,
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<ApiResponse<T>>;
  /** Creates a session through the internal API; fails unless it answers 201. */
  createSession(tenant: Tenant, overrides?: Record<string, unknown>): Promise<any>;
  /** Starts another sessions replica (same database and topics), e.g. a second sweeper; its URL serves /metrics. */
  startReplica(env?: Record<string, string>): Promise<{ app: SessionsApp; url: string }>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra settings of the orders app (e.g. a quiet outbox sweep while counting round trips). */
  ordersEnv?: Record<string, string>;
  /** Count each service's database commands (CommandCounter), e.g. for the round-trip budget. */
  counters?: { orders?: CommandCounter; sessions?: CommandCounter };
}

/** Starts `app`, its database commands counted by `counter` when one is given. */
function started<T>(app: { start(): Promise<T> }, counter: CommandCounter | undefined): Promise<T> {
  return counter ? counter.watch(() => app.start()) : app.start();
}

export async function startStack(
  label: string,
  sessionsEnv: Record<string, string> = {},
  options: StackOptions = {},
): Promise<Stack> {
  const mongoUrl = process.env.MONGODB_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!mongoUrl || !brokers) throw new Error('MONGODB_URL and KAFKA_BROKERS must be set (integration global setup)');
  const id = uniqueName(label);
  const topicPrefix = `t_${id}`;
  const logger = createLogger('test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const clock = new TestClock();

  const common = {
    MONGODB_URL: mongoUrl,
    KAFKA_BROKERS: brokers,
    TOPIC_PREFIX: topicPrefix,
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SHUTDOWN_GRACE_MS: '1000',
  };
  const ordersConfig = parseOrdersConfig({
    ...common,
    MONGODB_DATABASE: `orders_${id}`,
    INTERNAL_CALLERS: internalCallers({ gateway: GATEWAY_TOKEN, sessions: SESSIONS_TOKEN }),
    PROCESSOR_REFUND_WEBHOOK_SECRET: PROCESSOR_REFUND_SECRET,
    ...options.ordersEnv,
  });
  const ordersApp = buildOrdersApp(ordersConfig, logger);
  const ordersUrl = (await started(ordersApp, options.counters?.orders)).url;

  const sessionsEnvFull = {
    ...common,
    MONGODB_DATABASE: `sessions_${id}`,
    ORDERS_URL: ordersUrl,
    CHECKOUT_BASE_URL: 'http://127.0.0.1:8080/checkout',
    PROCESSOR_WEBHOOK_SECRET: PROCESSOR_SECRET,
    CSRF_SECRET,
    ID_DERIVATION_SECRET,
    INTERNAL_TOKEN: SESSIONS_TOKEN,
    INTERNAL_CALLERS: internalCallers({ gateway: GATEWAY_TOKEN }),
    EXPIRY_SWEEP_INTERVAL_MS: '250',
    SESSION_EVENTS_PARTITIONS: '3',
    ...sessionsEnv,
  };
  const apps: SessionsApp[] = [];
  const sessionsApp = buildApp(parseConfig(sessionsEnvFull), logger, { clock: clock.now });
  apps.push(sessionsApp);
  const { url: sessionsUrl } = await started(sessionsApp, options.counters?.sessions);

  const call = async (
    base: string,
    method: string,
    path: string,
    tenant: Tenant | null,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    const headers: Record<string, string> = {
      'x-request-id': `req_${randomBytes(6).toString('hex')}`,
      ...extraHeaders,
    };
    if (tenant) {
      headers['x-internal-token'] = base === ordersUrl && SESSIONS_ONLY.test(path) ? SESSIONS_TOKEN : GATEWAY_TOKEN;
      headers['x-organization-id'] = tenant.organizationId;
      headers['x-mode'] = tenant.mode;
      if (tenant.settings) headers['x-checkout-settings'] = encodeCheckoutSettingsHeader(tenant.settings);
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${base}${path}`, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // HTML or text
    }
    return { status: res.statusCode, body: parsed, headers: res.headers };
  };

  return {
    ordersUrl,
    sessionsUrl,
    clock,
    topicPrefix,
    sessionEventsTopic: topicName(topicPrefix, TOPICS.sessionEvents),
    kafkaBrokers: brokers.split(','),
    api: (method, path, tenant, body, extra) => call(sessionsUrl, method, path, tenant, body, extra),
    orders: (method, path, tenant, body, extra) => call(ordersUrl, method, path, tenant, body, extra),
    async createSession(tenant, overrides = {}) {
      const res = await call(sessionsUrl, 'POST', '/internal/sessions', tenant, sessionRequest(overrides));
      if (res.status !== 201) throw new Error(`session create answered ${res.status}: ${JSON.stringify(res.body)}`);
      return (res.body as { session: unknown }).session;
    },
    async startReplica(env = {}) {
      const replica = buildApp(parseConfig({ ...sessionsEnvFull, ...env }), logger, { clock: clock.now });
      apps.push(replica);
      const { url } = await replica.start();
      return { app: replica, url };
    },
    async stop() {
      for (const app of apps.reverse()) await app.stop().catch(() => {});
      await ordersApp.stop().catch(() => {});
    },
  };
}

export function sessionRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    items: [
      { name: 'Flat white', quantity: 2, unitPrice: 450 },
      { name: 'Croissant', quantity: 1, unitPrice: 325 },
    ],
    taxes: [{ name: 'Sales tax', type: 'additive', amount: 98 }],
    discounts: [{ name: 'Loyalty', type: 'fixed', amount: 100 }],
    successUrl: 'https://merchant.example/thanks?session={SESSION_ID}&order={ORDER_ID}',
    ...overrides,
  };
}

interface CollectedEvent {
  key: string;
  eventId: string;
  value: any;
}

/** Collects every message of the sessions events topic from the beginning. */
export async function collectSessionEvents(
  stack: Stack,
): Promise<{ messages: CollectedEvent[]; of(sessionId: string): CollectedEvent[]; stop(): Promise<void> }> {
  const messages: CollectedEvent[] = [];
  const probe = await readTopic({
    kafka: createKafka({ clientId: uniqueName('probe'), brokers: stack.kafkaBrokers }),
    topic: stack.sessionEventsTopic,
    groupId: uniqueName(`${stack.topicPrefix}.probe`),
    onMessage: (message) =>
      messages.push({
        key: message.key ?? '',
        eventId: message.headers['event-id'] ?? '',
        value: JSON.parse(message.value || 'null'),
      }),
  });
  return {
    messages,
    // Distinct events of one session. The outbox relay publishes at least once (a publishWritten and a replica's
    // sweep may both send one outbox entry), so the topic can hold a duplicate message of one event; consumers
    // dedupe on the event id, and "fired once" means one event id.
    of: (sessionId) => [...new Map(messages.filter((m) => m.key === sessionId).map((m) => [m.eventId, m])).values()],
    stop: () => probe.stop(),
  };
}

export type SessionEvents = Awaited<ReturnType<typeof collectSessionEvents>>;

/**
 * A stack and what it publishes on the sessions events topic (collected from the start), started before the file's
 * tests and stopped after them; `use` receives both once started (to set the file's variables).
 */
export function stackWithEventsPerFile(label: string, use: (started: { stack: Stack; events: SessionEvents }) => void) {
  let stack: Stack | undefined;
  let events: SessionEvents | undefined;
  beforeAll(async () => {
    stack = await startStack(label);
    events = await collectSessionEvents(stack);
    use({ stack, events });
  });
  afterAll(() => stopAll(events, stack));
}

/** Stops what a test file started, in this order, skipping what a failed start left undefined. */
export async function stopAll(...parts: ({ stop(): Promise<void> } | undefined)[]): Promise<void> {
  for (const part of parts) await part?.stop();
}

/** Messages on the sessions events topic right now (sum of high-water marks): no waiting, no consumer. */
export async function sessionEventsOnTopic(stack: Stack): Promise<number> {
  const offsets = await topicOffsets(
    createKafka({ clientId: uniqueName('admin'), brokers: stack.kafkaBrokers }),
    stack.sessionEventsTopic,
  );
  return [...offsets.values()].reduce((sum, p) => sum + p.high, 0);
}

/** Expiry sweeps a sessions process has completed, from its /metrics (sessions_expiry_sweeps_total). */
export function sweepsCompleted(sessionsUrl: string): Promise<number> {
  return metricValue(sessionsUrl, 'sessions_expiry_sweeps_total');
}
