// For unit tests of code whose collaborators are fakes that answer at once: nothing there waits for a clock or
// an engine, so "not yet" is decided within a few turns of the event loop, not by a deadline (eventually is
// for real engines).

/** A promise the test opens when it chooses: a fake's answer, held back. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Whether `condition` holds within `turns` turns of the event loop (each a macrotask, so all microtasks run). */
export async function withinTurns(condition: () => boolean, turns = 20): Promise<boolean> {
  for (let turn = 0; turn < turns && !condition(); turn += 1) await new Promise((resolve) => setImmediate(resolve));
  return condition();
}

/** Whether `promise` settles, either way, within a few turns of the event loop. */
export async function settledYet(promise: Promise<unknown>, turns = 20): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return withinTurns(() => settled, turns);
}
