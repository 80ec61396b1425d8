import { waitFor } from '@checkout/engines';

/**
 * Polls `probe` until it returns a value other than undefined/false (or stops throwing), or the deadline
 * passes; then fails with the last error. Tests wait for conditions with this, never with a fixed sleep.
 * The loop itself is the engines' waitFor, which readiness checks use too.
 */
export function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { deadlineMs?: number; intervalMs?: number; description?: string } = {},
): Promise<T> {
  return waitFor(options.description ?? 'condition', probe, {
    deadlineMs: options.deadlineMs ?? 10_000,
    intervalMs: options.intervalMs ?? 25,
  });
}
