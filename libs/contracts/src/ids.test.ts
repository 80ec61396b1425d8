import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ID_PREFIXES,
  ID_SUFFIX_LENGTH,
  LINE_ID_PREFIXES,
  OrderId,
  idSchema,
  isIdOf,
  isLineIdOf,
  modeOfId,
  newId,
  newLineId,
} from './ids';

describe('id generation', () => {
  it('When an id is minted, then it is <prefix>_<mode>_ plus 24 alphanumerics (D3)', () => {
    for (const prefix of Object.values(ID_PREFIXES)) {
      for (const mode of ['test', 'live'] as const) {
        const id = newId(prefix, mode);
        expect(id).toMatch(new RegExp(`^${prefix}_${mode}_[0-9A-Za-z]{${ID_SUFFIX_LENGTH}}$`));
        expect(isIdOf(prefix, id, mode)).toBe(true);
        expect(modeOfId(id)).toBe(mode);
      }
    }
  });

  it('When a line id is minted, then it has no mode word (D3)', () => {
    expect(newLineId('item')).toMatch(/^item_[0-9A-Za-z]{24}$/);
    expect(newLineId('tax')).toMatch(/^tax_[0-9A-Za-z]{24}$/);
    expect(newLineId('disc')).toMatch(/^disc_[0-9A-Za-z]{24}$/);
    for (const prefix of Object.values(LINE_ID_PREFIXES)) expect(isLineIdOf(prefix, newLineId(prefix))).toBe(true);
    expect(isLineIdOf('item', 'item_test_abc')).toBe(false);
  });

  it('When many ids are minted, then they are distinct and use the whole alphabet (D3)', () => {
    const ids = Array.from({ length: 2000 }, () => newId('ord', 'test'));
    expect(new Set(ids).size).toBe(ids.length);
    const seen = new Set(ids.flatMap((id) => [...id.slice('ord_test_'.length)]));
    // 48 000 draws from 62 symbols: every symbol shows up unless the source is broken or biased away from it.
    expect(seen.size).toBe(62);
  });
});

describe('id parsing (D4)', () => {
  it.each([
    ['ord_test_abc123', true],
    ['ord_live_A', true],
    [`ord_live_${'a'.repeat(64)}`, true],
    [`ord_live_${'a'.repeat(65)}`, false],
    ['ord_test_', false],
    ['ord_prod_abc', false],
    ['cs_test_abc', false],
    ['ord_test_ab-c', false],
    ['ord_test_abc\n', false],
    [' ord_test_abc', false],
  ])('When %j is checked as an order id, then well-formed is %s', (value, expected) => {
    expect(isIdOf('ord', value)).toBe(expected);
    expect(OrderId.safeParse(value).success).toBe(expected);
  });

  it('When a mode is given, then only ids of that mode match, while the schema accepts either (D4)', () => {
    expect(isIdOf('cs', 'cs_live_abc', 'test')).toBe(false);
    expect(isIdOf('cs', 'cs_live_abc', 'live')).toBe(true);
    expect(idSchema('cs', 'x').safeParse('cs_live_abc').success).toBe(true);
  });

  it('When the value is not a string, then it is not an id', () => {
    expect(isIdOf('ord', 42)).toBe(false);
    expect(isIdOf('ord', null)).toBe(false);
  });

  it('When modeOfId reads a foreign or malformed string, then it answers undefined', () => {
    expect(modeOfId('sk_test_abc')).toBeUndefined();
    expect(modeOfId('item_abc')).toBeUndefined();
    expect(modeOfId('ord_test_')).toBeUndefined();
    expect(modeOfId('evt_live_x')).toBe('live');
  });

  it('Property: any generated id round-trips through isIdOf and modeOfId (D3, D4)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(ID_PREFIXES)),
        fc.constantFrom('test' as const, 'live' as const),
        (prefix, mode) => {
          const id = newId(prefix, mode);
          return isIdOf(prefix, id) && isIdOf(prefix, id, mode) && modeOfId(id) === mode;
        },
      ),
    );
  });
});
