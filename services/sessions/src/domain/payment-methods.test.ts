import { describe, expect, it } from 'vitest';
import { PAYMENT_METHODS } from '@checkout/contracts';
import { PAYMENT_METHOD_TABLE, offers, parseUsdToCents, type OfferContext } from './payment-methods';

// The payment methods table (D26, D27): each entry's simulator, its availability, and what the page shows of it.

const form = (fields: Record<string, string>) => new URLSearchParams(fields);
const destination = (state: 'none' | 'accepting' | 'unavailable'): OfferContext => ({
  destination: () => Promise.resolve(state),
});

describe('card (D27)', () => {
  const card = PAYMENT_METHOD_TABLE.card;
  const simulate = (f: URLSearchParams) => card.simulate(f);
  it('When the number is 4242…, then it succeeds; 4000 0000 0000 0002 is declined; only the last four digits go on', () => {
    expect(simulate(form({ cardNumber: '4242 4242 4242 4242' }))).toEqual({ outcome: 'succeeded', cardLast4: '4242' });
    expect(simulate(form({ cardNumber: '4000-0000-0000-0002' }))).toEqual({ outcome: 'declined', cardLast4: '0002' });
  });
  it('When the number is another card or missing, then the customer is sent back with a notice', () => {
    expect(simulate(form({ cardNumber: '5555555555554444' }))).toBe('not_test_card');
    expect(simulate(form({ cardNumber: '  ' }))).toBe('card_required');
    expect(simulate(form({}))).toBe('card_required');
  });
  it('When shown, then its one input is labelled "Card number" (D41)', () => {
    expect(PAYMENT_METHOD_TABLE.card.fields.map((f) => f.label)).toEqual(['Card number']);
  });
});

describe('stablecoin (D15, D27)', () => {
  const stablecoin = PAYMENT_METHOD_TABLE.stablecoin;
  const simulate = (f: URLSearchParams) => stablecoin.simulate(f);
  const available = (c: OfferContext) => stablecoin.available(c);
  it('When an amount is entered, then that amount is paid (partial and over-payment alike)', () => {
    expect(simulate(form({ amount: '$1,234.05' }))).toEqual({ outcome: 'succeeded', amount: 123405 });
    expect(simulate(form({ amount: '0' }))).toBe('amount');
    expect(simulate(form({ amount: 'ten' }))).toBe('amount');
  });
  it('When the destination the order names no longer accepts payments, then it is not offered', async () => {
    expect(await available(destination('none'))).toBe(true);
    expect(await available(destination('accepting'))).toBe(true);
    expect(await available(destination('unavailable'))).toBe('destination_unavailable');
  });
});

describe('stored value (D27)', () => {
  it('When chosen, then it pays the amount due and asks for nothing', () => {
    expect(PAYMENT_METHOD_TABLE.stored_value.simulate(form({}))).toEqual({ outcome: 'succeeded' });
    expect(PAYMENT_METHOD_TABLE.stored_value.fields).toEqual([]);
  });
});

describe('offers (D26)', () => {
  it('When a method is not enabled for the organization and mode, then it is not offered, whatever its entry says', async () => {
    expect(await offers(['card'], 'stored_value', destination('none'))).toBe('method');
    expect(await offers(['card', 'stored_value'], 'stored_value', destination('none'))).toBe(true);
  });
  it('When a method is enabled, then its entry decides; the destination is asked only by a method that needs it', async () => {
    let asked = 0;
    const counting: OfferContext = {
      destination: () => {
        asked += 1;
        return Promise.resolve('unavailable');
      },
    };
    expect(await offers(PAYMENT_METHODS, 'card', counting)).toBe(true);
    expect(asked).toBe(0);
    expect(await offers(PAYMENT_METHODS, 'stablecoin', counting)).toBe('destination_unavailable');
    expect(asked).toBe(1);
  });
  it('When contracts name a method, then the table has an entry with a label for it', () => {
    for (const method of PAYMENT_METHODS) expect(PAYMENT_METHOD_TABLE[method].label).not.toBe('');
  });
});

describe('parseUsdToCents', () => {
  it('parses dollar input into cents; anything else is null', () => {
    expect(parseUsdToCents('12')).toBe(1200);
    expect(parseUsdToCents('12.3')).toBe(1230);
    expect(parseUsdToCents('$1,234.05')).toBe(123405);
    expect(parseUsdToCents('1.234')).toBeNull();
    expect(parseUsdToCents('abc')).toBeNull();
  });
});
