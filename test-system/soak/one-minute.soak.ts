import { describe, expect, it } from 'vitest';
import { soakTier } from './run';

// The soak's tier of `npm test` (vitest project "soak"; not a *.test.ts file, so the unit tier does
// not pick it up). One minute of seeded load against a stack of its own (engines and four service processes)
// while the chaos loop SIGKILLs a service every 14 s, each of the four once, and restarts the broker and the
// database once each; then the drain and the ledger. Every wait in it is a condition with a deadline. The ten-
// minute run is `npm run soak -- --minutes 10` (README).

const SEED = 12;

describe('the one-minute chaos soak', () => {
  it('When every service is killed once and the broker and the database restart under load, then every cent and every event is accounted for (no ledger violation)', async () => {
    // CI keeps no service logs: a failing run prints their warnings and errors with the ledger.
    const { violated, message } = await soakTier(`soak ledger (1 min, seed ${SEED})`, 'soak', {
      minutes: 1,
      rate: 2,
      seed: SEED,
      killEveryMs: 14_000,
    });
    expect(violated, message).toEqual([]);
  });
});
