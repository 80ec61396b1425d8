import { shardKeyFields, type Migration } from '@checkout/mongo';
import { COLLECTIONS, ORDER_SHARDING } from './indexes';
import type { OrderDocument } from './order.document';

/**
 * The orders service's rolling migrations, in order (docs/engineering.md, "Migrations that roll"); run in the
 * background by the replica holding each step's lease, recorded done in the `migrations` collection. An id is
 * never reused or edited once released: a change of mind is a new step. `backfill` is the ledger's (D52: an
 * order's balance transactions built from it and stored, idempotent), `reserveExternalId` the orders store's
 * (OrdersStore.reserveExternalIdOf, idempotent); both wired in app.ts.
 */
export function orderMigrations(work: {
  backfill: (order: OrderDocument) => Promise<void>;
  reserveExternalId: (order: OrderDocument) => Promise<void>;
}): readonly Migration[] {
  const routed = { shardKeyFields: shardKeyFields(ORDER_SHARDING, COLLECTIONS.orders) };
  return [
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
      ...routed,
    },
    {
      // D52. Expand (this release): every order created carries balanceLines (its lines are the consumer's, which
      // reads every order event), and the consumer builds the lines of any order an event names, old ones
      // included. Migrate: this step builds the lines of the orders that received money with no event since (paid
      // before the ledger existed, or created by an older replica during the rollout) and marks them. Contract (a
      // later release, once recorded done everywhere): the step goes; the marker stays harmless. A write of the
      // order meanwhile that drops the marker (a replace from an older read) only makes the next pass build its
      // lines again: they exist, so nothing is written twice.
      id: 'orders.0002-balance-transactions-of-orders-paid-before',
      description: 'every order that received money before the ledger existed has its balance transactions (D52)',
      collection: COLLECTIONS.orders,
      pending: { 'amounts.paid': { $gt: 0 }, balanceLines: { $exists: false } },
      update: { $set: { balanceLines: true } },
      prepare: (doc) => work.backfill(doc as unknown as OrderDocument),
      ...routed,
    },
    {
      // D37 without a unique index on the orders, so that they can be sharded by their id (docs/operations.md,
      // "Shard keys"). Expand (this release): every order created with an externalId reserves it first in
      // order_external_ids and is marked externalIdReserved; org_mode_uniqueKey still refuses a duplicate of an
      // order of the previous release, which writes no reservation. Migrate: this step reserves the externalIds of
      // the orders stored without one. Contract (the next release, once the step is recorded done in every
      // environment and no replica of a release before this one runs): org_mode_uniqueKey is dropped.
      id: 'orders.0003-external-id-reservations',
      description: 'every order with an externalId holds it in order_external_ids (D37), not by a unique index',
      collection: COLLECTIONS.orders,
      pending: { externalId: { $exists: true }, externalIdReserved: { $exists: false } },
      update: { $set: { externalIdReserved: true } },
      prepare: (doc) => work.reserveExternalId(doc as unknown as OrderDocument),
      ...routed,
    },
  ];
}
