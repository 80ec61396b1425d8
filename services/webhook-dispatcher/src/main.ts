// The only file of this service that reads process.env.
import { createLogger } from '@checkout/logger';
import { stopOnSignals } from '@checkout/http';
import { parseConfig } from './config';
import { buildApp } from './app';

const config = parseConfig(process.env);
const logger = createLogger('webhook-dispatcher', { level: config.LOG_LEVEL });
const app = buildApp(config, logger);
stopOnSignals(app, logger, config.SHUTDOWN_GRACE_MS);
app.start().then(
  ({ url }) => logger.info({ url }, 'webhook-dispatcher listening'),
  (err: unknown) => {
    logger.fatal({ err }, 'webhook-dispatcher failed to start');
    process.exit(1);
  },
);
