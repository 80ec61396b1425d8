import type { Logger } from '@checkout/logger';

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop taking work, finish what is in flight, commit offsets, close
 * connections (docs/operations.md). A second signal, or the grace period running out, exits hard.
 */
export function stopOnSignals(service: Stoppable, logger: Logger, graceMs: number): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const hardExit = setTimeout(() => {
      logger.error('graceful shutdown took too long: exiting');
      process.exit(1);
    }, graceMs + 5_000);
    hardExit.unref();
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/**
 * The first step of a graceful stop, after the service has begun answering /readyz 503: keep serving
 * for `drainMs` so the load balancer (its health checks) or Kubernetes (endpoint removal) stops sending new
 * requests before the listener closes, like a preStop sleep. Without it, requests routed in that gap meet a
 * closed port.
 */
export async function drainBeforeStop(drainMs: number, logger: Logger): Promise<void> {
  if (drainMs <= 0) return;
  logger.info({ drainMs }, 'draining: /readyz answers 503 until the load balancer has noticed');
  await new Promise((resolve) => setTimeout(resolve, drainMs));
}
