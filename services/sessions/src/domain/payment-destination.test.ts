import { describe, expect, it } from 'vitest';
import { acceptsPayments } from './payment-destination';

describe('acceptsPayments', () => {
  it.each([
    [{ status: 'active', verified: true }, true],
    [{ status: 'active', verified: false }, false],
    [{ status: 'inactive', verified: true }, false],
    [{ status: 'deleted', verified: true }, false],
    [null, false],
  ])('When the destination is %j, then payments into it are %s', (destination, expected) => {
    expect(acceptsPayments(destination)).toBe(expected);
  });
});
