import { describe, expect, it } from 'vitest';
import { pageText } from './page-text';

const plain = (s: string) => s.replace(/[\u00a0\u202f\u200e\u200f\u061c]/g, ' ').replace(/ +/g, ' ');

describe('pageText (words and formats of a locale)', () => {
  it('When English, then the page reads as it always has', () => {
    const en = pageText('en');
    expect(en.t('pay', { amount: en.amount(1223) })).toBe('Pay $12.23');
    expect(en.plural('failedAttempts', 1)).toBe('1 declined payment attempt so far.');
    expect(en.plural('failedAttempts', 3)).toBe('3 declined payment attempts so far.');
    expect(en.timeLeft(3_600_000)).toBe('1:00:00');
    expect(en.dir).toBe('ltr');
  });

  it('When German, then amounts, numbers and dates are written the German way, still in USD', () => {
    const de = pageText('de');
    expect(plain(de.amount(123405))).toBe('1.234,05 $');
    expect(plain(de.percent(12.5))).toBe('12,5 %');
    expect(de.dateTime('2026-03-04T05:06:00.000Z')).toBe('4. März 2026, 05:06 UTC');
    expect(de.t('pay', { amount: de.amount(500) })).toMatch(/^5,00\s\$ bezahlen$/);
  });

  it('When Japanese or Brazilian Portuguese, then the dollar is named so it is not mistaken for the local one', () => {
    expect(plain(pageText('pt-BR').amount(500))).toBe('US$ 5,00');
    expect(pageText('ja').amount(500)).toBe('$5.00');
    expect(pageText('ja').dateTime('2026-03-04T05:06:00.000Z')).toBe('2026年3月4日 5:06 UTC');
  });

  it("When Arabic, then right to left, and the plural form of the number's category", () => {
    const ar = pageText('ar');
    expect(ar.dir).toBe('rtl');
    expect(ar.plural('failedAttempts', 1)).toBe('رُفضت محاولة دفع واحدة حتى الآن.');
    expect(ar.plural('failedAttempts', 2)).toBe('رُفضت محاولتا دفع حتى الآن.');
    expect(ar.plural('failedAttempts', 3)).toContain('محاولات');
    expect(ar.plural('failedAttempts', 11)).toContain('محاولة');
  });

  it('When a text has placeholders, then each is filled and an unknown one is left as written', () => {
    const fr = pageText('fr');
    expect(fr.t('returnTo', { merchant: 'Café <b>' })).toBe('Retour à Café <b>');
    expect(fr.t('returnTo')).toBe('Retour à {merchant}');
    expect(fr.plural('failedAttempts', 2)).toBe('2 tentatives de paiement refusées jusqu’ici.');
  });

  it('When the countdown is written, then in the clock form of countdown.ts', () => {
    expect(pageText('fr').timeLeft(61_000)).toBe('1:01');
    expect(pageText('zh-Hans').timeLeft(3_599_000)).toBe('59:59');
  });
});
