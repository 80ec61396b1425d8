import { createLogger, type Logger } from '@checkout/logger';
import { stopOnSignals } from '@checkout/http';

/** What a service's buildApp returns: start() answers the addresses it listens on (logged), stop() is graceful. */
export interface RunnableService {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

/**
 * The whole of a service's main.ts, the only place that reads process.env: parse the config (a bad value stops
 * the process with the key's name), make the logger, build the app, stop it gracefully on SIGTERM/SIGINT, start
 * it, and exit non-zero if it cannot start.
 */
export function runService<C extends { LOG_LEVEL: string; SHUTDOWN_GRACE_MS: number }>(
  service: string,
  environment: Record<string, string | undefined>,
  parseConfig: (environment: Record<string, string | undefined>) => C,
  buildApp: (config: C, logger: Logger) => RunnableService,
): void {
  const config = parseConfig(environment);
  const logger = createLogger(service, { level: config.LOG_LEVEL });
  const app = buildApp(config, logger);
  stopOnSignals(app, logger, config.SHUTDOWN_GRACE_MS);
  app.start().then(
    (addresses) => logger.info(addresses, `${service} listening`),
    (err: unknown) => {
      logger.fatal({ err }, `${service} failed to start`);
      process.exit(1);
    },
  );
}
