import { describe, expect, it } from 'vitest';
import { pageShell } from './page';

describe('pageShell', () => {
  it('wraps the page in a document with its language, escaped title, nonce and main', () => {
    const shell = { title: 'A & B', nonce: 'n1', style: 'p{}', mainId: 'm', main: '<h1>Hi</h1>' };
    const page = pageShell({ ...shell, before: '<a href="#m">Skip</a>', after: '<p id="live"></p>' });
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).toContain('<title>A &amp; B</title>');
    expect(page).toContain('<style nonce="n1">p{}</style>');
    expect(page).toContain('<a href="#m">Skip</a>\n<main id="m">\n<h1>Hi</h1>\n</main>\n<p id="live"></p>');
    expect(pageShell({ lang: 'de', title: 't', nonce: 'n', style: '', main: '' })).toContain('<html lang="de">');
    expect(pageShell({ lang: 'ar', dir: 'rtl', title: 't', nonce: 'n', style: '', main: '' })).toContain(
      '<html lang="ar" dir="rtl">',
    );
  });
});
