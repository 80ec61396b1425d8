import { describe, expect, it } from 'vitest';
import { orderIdsIn } from './order-trail';

describe('orderIdsIn', () => {
  it('When ledger examples name orders, then each order id is taken once, test and live alike', () => {
    const examples = [
      'order events lost (order.created, order.paid, order.cancelled): order.paid of ord_test_OjHJqREfKyac6cuFr6U13kbP (completed)',
      "orders whose amounts.refunded or paymentStatus disagrees with their refunds: ord_live_x4YIftgdv0StYCGGHSEOWyEe: the session's copy shows 0 refunded, paid",
      'order events lost (order.created, order.paid, order.cancelled): order.created of ord_test_OjHJqREfKyac6cuFr6U13kbP (completed)',
      'events lost: cs_test_abc',
    ];
    expect(orderIdsIn(examples)).toEqual(['ord_test_OjHJqREfKyac6cuFr6U13kbP', 'ord_live_x4YIftgdv0StYCGGHSEOWyEe']);
  });
});
