import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

// kafkajs logs retriable protocol errors (a coordinator still loading, a leader moving) at ERROR while it
// retries them itself; they are demoted so that the log's errors stay actionable.
const RETRIABLE_NOISE = /coordinator is (loading|not available)|not the leader|leadership election|There is no leader|Connection error|Response (GroupCoordinator|FindCoordinator|InitProducerId)/i;

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

export function createKafka(options: KafkaOptions): Kafka {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(options.logger.child({ component: 'kafkajs' })),
  });
}

/** A readiness check that the broker answers (used by /readyz). */
export function kafkaReadinessCheck(kafka: Kafka): () => Promise<void> {
  const admin = kafka.admin({ retry: { retries: 0 } });
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
