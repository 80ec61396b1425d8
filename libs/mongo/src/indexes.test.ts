import { describe, expect, it } from 'vitest';
import { indexesOn } from './indexes';

describe('indexesOn', () => {
  it('When a collection declares indexes by name, then each is a definition on that collection, in that order', () => {
    expect(
      indexesOn('orders', {
        org_mode_uniqueKey: { key: { organizationId: 1, uniqueKey: 1 }, unique: true, servedBy: 'insertOrder' },
        outboxPending: { key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep' },
      }),
    ).toEqual([
      {
        collection: 'orders',
        name: 'org_mode_uniqueKey',
        key: { organizationId: 1, uniqueKey: 1 },
        unique: true,
        servedBy: 'insertOrder',
      },
      { collection: 'orders', name: 'outboxPending', key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep' },
    ]);
  });
});
