import { describe, expect, it } from 'vitest';
import { SESSION_LOCALES, type PageLocale } from '@checkout/contracts';
import type { PluralText } from './catalog';
import { CATALOGS } from './catalogs';
import { en } from './catalogs/en';

// Every locale's catalog says what English says: the same keys, each text with the same {placeholders}, and a
// plural text with a form for each plural category of its language.

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const OTHERS = SESSION_LOCALES.filter((l) => l !== 'en');

describe('hosted page catalogs', () => {
  it('has a catalog for every locale a session can have', () => {
    expect(Object.keys(CATALOGS).sort()).toEqual([...SESSION_LOCALES].sort());
  });

  it.each(OTHERS)('%s has exactly the keys of English, none missing, none extra', (locale) => {
    expect(Object.keys(CATALOGS[locale]).sort()).toEqual(Object.keys(en).sort());
  });

  it.each(OTHERS)('%s: every text has the placeholders of its English text', (locale) => {
    const differing = Object.entries(en).filter(([key, english]) => {
      const text: unknown = CATALOGS[locale][key as keyof typeof en];
      if (typeof english === 'string')
        return typeof text !== 'string' || !sameList(placeholders(text), placeholders(english));
      // A plural form may leave out {count} where its words say the number (Arabic's "two attempts").
      const forms = text as PluralText;
      const allowed = placeholders(english.other);
      return (
        !sameList(placeholders(forms.other), allowed) ||
        Object.values(forms).some((form) => placeholders(form).some((p) => !allowed.includes(p)))
      );
    });
    expect(differing.map(([key]) => key)).toEqual([]);
  });

  it.each(SESSION_LOCALES)('%s: every plural text has a form for each plural category of the language', (locale) => {
    const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
    for (const [key, english] of Object.entries(en)) {
      if (typeof english === 'string') continue;
      const forms = CATALOGS[locale][key as keyof typeof en] as PluralText;
      expect(Object.keys(forms).sort(), `${locale} ${key}`).toEqual([...categories].sort());
    }
  });

  it.each(OTHERS)('%s is translated: no text but names and numbers is left as in English', (locale: PageLocale) => {
    // Words the same in both languages (Total, Stablecoin, the title's pattern) are few: a catalog copying English
    // wholesale would fail.
    const same = Object.entries(en).filter(
      ([key, english]) => typeof english === 'string' && CATALOGS[locale][key as keyof typeof en] === english,
    );
    expect(same.length, same.map(([key]) => key).join(', ')).toBeLessThanOrEqual(6);
  });
});

function sameList(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
