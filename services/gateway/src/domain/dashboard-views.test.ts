import { describe, expect, it } from 'vitest';
import type { CheckoutSession } from '@checkout/contracts';
import { refundAmountFromForm, sessionHistory, sinceFromForm } from './dashboard-views';

describe('sinceFromForm (D47 recover form)', () => {
  it('When a datetime-local value or an ISO time is given, then it is read as UTC; anything else is refused', () => {
    expect(sinceFromForm('2026-11-24T10:00')).toBe('2026-11-24T10:00:00.000Z');
    expect(sinceFromForm('2026-11-24T10:00:05')).toBe('2026-11-24T10:00:05.000Z');
    expect(sinceFromForm('2026-11-24T10:00:05.000+01:00')).toBe('2026-11-24T09:00:05.000Z');
    for (const bad of [undefined, '', 'yesterday', '1700000000000', '2026-13-40T99:99'])
      expect(sinceFromForm(bad)).toBeUndefined();
  });
});

describe('sessionHistory (D47 session page)', () => {
  const session = (overrides: Partial<CheckoutSession> & { paidAt?: string }) =>
    ({
      createdAt: '2026-11-24T10:00:00.000Z',
      updatedAt: '2026-11-24T10:05:00.000Z',
      expiresAt: '2026-11-24T11:00:00.000Z',
      status: 'pending',
      ...overrides,
      order: { paidAt: overrides.paidAt },
    }) as unknown as CheckoutSession;

  it('When a session was paid and its event fired, then created, paid and the event in time order', () => {
    const history = sessionHistory(session({ status: 'completed', paidAt: '2026-11-24T10:03:00.000Z' }), [
      { id: 'evt_test_1', event: 'checkout.session.completed', createdAt: '2026-11-24T10:03:00.001Z' },
    ]);
    expect(history.map((h) => h.label)).toEqual([
      'Created (pending)',
      'Order paid in full',
      'Event checkout.session.completed',
    ]);
    expect(history[2]?.href).toBe('/dashboard/events/evt_test_1');
  });

  it('When a session expired before its event is recorded, or was cancelled, then that step is shown from the session itself', () => {
    expect(sessionHistory(session({ status: 'expired' }), []).map((h) => [h.at, h.label])).toEqual([
      ['2026-11-24T10:00:00.000Z', 'Created (pending)'],
      ['2026-11-24T11:00:00.000Z', 'Expired'],
    ]);
    expect(sessionHistory(session({ status: 'cancelled' }), []).at(-1)).toEqual({
      at: '2026-11-24T10:05:00.000Z',
      label: 'Cancelled (its order was cancelled)',
    });
  });
});

describe('refundAmountFromForm (D48 Refund form)', () => {
  it('When an amount is typed in dollars, then it is read as cents; empty is all that is refundable; anything else is refused', () => {
    expect(refundAmountFromForm('12.50')).toBe(1250);
    expect(refundAmountFromForm(' 12.5 ')).toBe(1250);
    expect(refundAmountFromForm('12')).toBe(1200);
    expect(refundAmountFromForm('0.01')).toBe(1);
    expect(refundAmountFromForm('')).toBeUndefined();
    expect(refundAmountFromForm(undefined)).toBeUndefined();
    for (const bad of ['0', '0.00', '-1', '1.234', '1,50', '1e3', 'abc', '12.', '.5'])
      expect(refundAmountFromForm(bad), bad).toBeNull();
  });
});
