/**
 * Polls `probe` until it returns a value other than undefined/false (or stops throwing), or the deadline
 * passes; then fails with the last error. Tests wait for conditions with this, never with a fixed sleep.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { deadlineMs?: number; intervalMs?: number; description?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? 10_000);
  const interval = options.intervalMs ?? 25;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const what = options.description ?? 'condition';
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${what}${reason}`, lastError === undefined ? undefined : { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
