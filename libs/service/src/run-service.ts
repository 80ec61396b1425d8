import { telemetrySettings } from '@checkout/config';
import { createLogger, type Logger } from '@checkout/logger';
import { stopOnSignals } from '@checkout/http';
import { startTelemetry } from '@checkout/telemetry';

/** What a service's buildApp returns: start() answers the addresses it listens on (logged), stop() is graceful. */
export interface RunnableService {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

type TelemetryKeys = Parameters<typeof telemetrySettings>[1];

/**
 * The whole of a service's main.ts, the only place that reads process.env: parse the config (a bad value stops
 * the process with the key's name), start tracing as the OTEL_* settings say (off without an endpoint), make the
 * logger, build the app, stop it gracefully on SIGTERM/SIGINT (the spans still buffered are exported last), start
 * it, and exit non-zero if it cannot start.
 */
export function runService<C extends { LOG_LEVEL: string; SHUTDOWN_GRACE_MS: number } & TelemetryKeys>(
  service: string,
  environment: Record<string, string | undefined>,
  parseConfig: (environment: Record<string, string | undefined>) => C,
  buildApp: (config: C, logger: Logger) => RunnableService,
): void {
  const config = parseConfig(environment);
  const telemetry = startTelemetry(telemetrySettings(service, config));
  const logger = createLogger(service, { level: config.LOG_LEVEL });
  const app = buildApp(config, logger);
  stopOnSignals(
    {
      async stop() {
        try {
          await app.stop();
        } finally {
          await telemetry.shutdown().catch((err: unknown) => logger.warn({ err }, 'could not export the last spans'));
        }
      },
    },
    logger,
    config.SHUTDOWN_GRACE_MS,
  );
  app.start().then(
    (addresses) => logger.info({ ...addresses, tracing: telemetry.enabled ? 'on' : 'off' }, `${service} listening`),
    (err: unknown) => {
      logger.fatal({ err }, `${service} failed to start`);
      process.exit(1);
    },
  );
}
