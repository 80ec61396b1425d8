import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  /** Total time allowed, in ms. */
  deadlineMs: number;
  /** Pause between attempts, in ms. */
  intervalMs?: number;
  /**
   * Called before every attempt; throwing aborts the wait at once. Used to stop waiting for an engine whose
   * process has already exited instead of burning the whole deadline.
   */
  abortIf?: () => void;
}

/**
 * Polls `probe` until it returns a value other than `undefined`/`false`, or throws once the deadline has passed.
 * A probe that throws counts as "not yet"; its last error is kept for the timeout message, because that is
 * usually the only clue to why an engine never came up.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitOptions,
): Promise<T> {
  const intervalMs = options.intervalMs ?? 250;
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    options.abortIf?.();
    try {
      const result = await probe();
      if (result !== undefined && result !== false) return result;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const elapsed = Date.now() - started;
    if (elapsed >= options.deadlineMs) {
      const reason = lastError === undefined ? '' : `: last error: ${errorMessage(lastError)}`;
      throw new Error(`${what} not reached within ${options.deadlineMs} ms${reason}`);
    }
    await delay(Math.min(intervalMs, Math.max(0, options.deadlineMs - elapsed)));
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
