import type { Migration } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

/**
 * The orders service's rolling migrations, in order (docs/engineering.md, "Migrations that roll"); run in the
 * background by the replica holding each step's lease, recorded done in the `migrations` collection. An id is
 * never reused or edited once released: a change of mind is a new step.
 */
export const ORDER_MIGRATIONS: readonly Migration[] = [
  {
    // Expand (this release): insertOrder stores revision 0, and every reader already took a missing revision as 0
    // (the x-order-revision answer, nextRevision). Migrate: this step. Contract (a later release, once the step
    // is recorded done in every environment): readers may rely on the field (`doc.revision ?? 0` goes).
    // Both versions tolerate it while it runs: 0 is what either presents for a missing revision, and a write
    // based on a read from before the step loses its conditional update and re-reads, as against any writer.
    id: 'orders.0001-revision-on-every-order',
    description: 'every order stores its revision (0 until its first change), not only orders changed since',
    collection: COLLECTIONS.orders,
    pending: { revision: { $exists: false } },
    update: { $set: { revision: 0 } },
  },
];
