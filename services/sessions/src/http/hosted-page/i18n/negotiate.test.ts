import { describe, expect, it } from 'vitest';
import { negotiateLocale, pageLocaleOf } from './negotiate';

describe('negotiateLocale (Accept-Language → the page locale)', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['*', 'en'],
    ['sv-SE, sv;q=0.9', 'en'],
    ['fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7', 'fr'],
    ['de-AT', 'de'],
    ['EN-gb', 'en'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['zh', 'zh-Hans'],
    ['zh-CN', 'zh-Hans'],
    ['zh-sg', 'zh-Hans'],
    ['zh-Hans-CN', 'zh-Hans'],
    ['zh-TW, ja;q=0.5', 'ja'],
    ['zh-HK', 'en'],
    ['ar-EG,ar;q=0.9', 'ar'],
    ['nl-BE', 'nl'],
    ['it-IT', 'it'],
    ['es-419', 'es'],
    // Qualities weigh: the highest wins, the earlier on a tie; 0 and malformed ones exclude.
    ['en;q=0.5, de;q=0.8', 'de'],
    ['ja;q=0.3, fr', 'fr'],
    ['fr;q=0, de;q=0.1', 'de'],
    ['es;q=0.8, it;q=0.8', 'es'],
    ['sv, nl;q=0.2', 'nl'],
    ['de;q=1.5, fr;q=0.4', 'fr'],
    ['de;q=abc, fr ; q=0.4', 'fr'],
    ['ja; Q=0.9, en;q=0.95', 'en'],
  ])('When Accept-Language is %j, then the page is in %s', (header, locale) => {
    expect(negotiateLocale(header)).toBe(locale);
  });
});

describe("pageLocaleOf (the session's locale)", () => {
  it('When the session says auto, then the browser chooses, and the answer varies by Accept-Language', () => {
    expect(pageLocaleOf('auto', 'ja')).toEqual({ locale: 'ja', negotiated: true });
  });
  it('When the session names a locale, then the browser does not change it', () => {
    expect(pageLocaleOf('ar', 'en-US')).toEqual({ locale: 'ar', negotiated: false });
  });
});
