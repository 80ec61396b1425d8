// The only file of this service that reads process.env.
import { createLogger } from '@checkout/logger';
import { stopOnSignals } from '@checkout/http';
import { parseConfig } from './config';
import { buildApp } from './app';

const config = parseConfig(process.env);
const logger = createLogger('gateway', { level: config.LOG_LEVEL });
const app = buildApp(config, logger);
stopOnSignals(app, logger, config.SHUTDOWN_GRACE_MS);
app.start().then(
  ({ url, adminUrl }) => logger.info({ url, adminUrl }, 'gateway listening'),
  (err: unknown) => {
    logger.fatal({ err }, 'gateway failed to start');
    process.exit(1);
  },
);
