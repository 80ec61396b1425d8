import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type LogEntry, type SASLOptions, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';
import { bindKafkajs, kafkajsOf, type KafkaClient } from './kafkajs';

export type { KafkaClient } from './kafkajs';
import { GROUP_REQUEST_TIMEOUT_MS } from './kafkajs-accommodations';
import { mendCoordinatorMoves } from './coordinator-moves';
import { mendDisconnectUnref } from './disconnect-unref';
import { mendRequestQueueTimers } from './request-queue';

export interface KafkaOptions {
  brokers: readonly string[];
  clientId: string;
  /** SASL SCRAM credentials: brokers that require them refuse a client without. */
  sasl?: { mechanism: 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** TLS to the brokers; `caFile`: a PEM of the CA that signed their certificates, if not a system one. */
  tls?: { caFile?: string };
  /** Where the client's own warnings go; none: silent (test probes, benchmarks). */
  logger?: Logger;
  /** How long one request may wait for the broker's answer (default 10 s). */
  requestTimeoutMs?: number;
  /** kafkajs' request-level log (each request and answer, at trace) into `logger`: a bench's trace, not a service's. */
  logRequests?: boolean;
}

// kafkajs logs retriable protocol errors (a coordinator still loading, a leader moving) at ERROR while it
// retries them itself, and so does each refused answer ensureTopics retries (a new topic's partition its broker
// does not host yet, the CreateTopics another service's creation of the same topic refused); they are demoted so
// that the log's errors stay actionable. What is still refused when the retries run out reaches our code and is
// logged there.
const RETRIABLE_NOISE = new RegExp(
  [
    'coordinator is (loading|not available)',
    'not the leader',
    'leadership election',
    'There is no leader',
    'does not host this topic-partition',
    'Connection error',
    'Response (GroupCoordinator|FindCoordinator|InitProducerId|CreateTopics)',
  ].join('|'),
  'i',
);

function pinoLogCreator(logger: Logger): logCreator {
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...rest } = log;
      const child = { kafkajs: rest };
      if (level === logLevel.ERROR && RETRIABLE_NOISE.test(`${message} ${String(rest.error ?? '')}`)) {
        logger.debug(child, message);
      } else if (level === logLevel.ERROR) logger.error(child, message);
      else if (level === logLevel.WARN) logger.warn(child, message);
      else if (level === logLevel.INFO) logger.debug(child, message);
      else logger.trace(child, message);
    };
}

function saslOf({ mechanism, username, password }: NonNullable<KafkaOptions['sasl']>): SASLOptions {
  return mechanism === 'scram-sha-256' ? { mechanism, username, password } : { mechanism, username, password };
}

export function createKafka(options: KafkaOptions): KafkaClient {
  mendRequestQueueTimers();
  mendCoordinatorMoves();
  mendDisconnectUnref();
  const ssl =
    options.tls && (options.tls.caFile === undefined ? true : { ca: [readFileSync(options.tls.caFile, 'utf8')] });
  const settings = (requestTimeout: number) =>
    new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      ...(ssl && { ssl }),
      ...(options.sasl && { sasl: saslOf(options.sasl) }),
      connectionTimeout: 3_000,
      requestTimeout,
      retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
      logLevel: !options.logger ? logLevel.NOTHING : options.logRequests ? logLevel.DEBUG : logLevel.WARN,
      ...(options.logger && { logCreator: pinoLogCreator(options.logger.child({ component: 'kafkajs' })) }),
    });
  const requestTimeout = options.requestTimeoutMs ?? 10_000;
  // Group members get a longer request timeout (GROUP_REQUEST_TIMEOUT_MS: a kafkajs accommodation).
  return bindKafkajs(
    { clientId: options.clientId, brokers: [...options.brokers] },
    settings(requestTimeout),
    settings(Math.max(requestTimeout, GROUP_REQUEST_TIMEOUT_MS)),
  );
}

/** A readiness check that the broker answers (used by /readyz). */
export function kafkaReadinessCheck(kafka: KafkaClient): () => Promise<void> {
  const admin = kafkajsOf(kafka).admin({ retry: { retries: 0 } });
  let connected: Promise<void> | undefined;
  return async () => {
    try {
      connected ??= admin.connect();
      await connected;
      await admin.describeCluster();
    } catch (err) {
      connected = undefined;
      throw err;
    }
  };
}
