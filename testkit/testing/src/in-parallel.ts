/**
 * Calls `task(0)` … `task(count - 1)`, started in that order with at most `concurrency` in flight, and resolves
 * with each call's result at its index. A rejection rejects the whole at once; the calls already started go on.
 */
export async function inParallel<R>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
