import { describe, expect, it } from 'vitest';
import { brandLogo, brandStyle, shownName } from './brand';

describe("the merchant's brand on the hosted page", () => {
  it("shows the display name, else the organization's name", () => {
    expect(shownName('Org Ltd', { displayName: 'Shop' })).toBe('Shop');
    expect(shownName('Org Ltd', { color: '#000000' })).toBe('Org Ltd');
    expect(shownName('Org Ltd', undefined)).toBe('Org Ltd');
  });

  it('shows the logo without a referrer, with alt text, escaped; and nothing without a logo', () => {
    const img = brandLogo('A "B" & C', { logoUrl: 'https://cdn.example/logo.png?a=1&b="2"' });
    expect(img).toContain('src="https://cdn.example/logo.png?a=1&amp;b=&quot;2&quot;"');
    expect(img).toContain('referrerpolicy="no-referrer"');
    expect(img).toContain('alt="A &quot;B&quot; &amp; C logo"');
    expect(brandLogo('Org', { displayName: 'Shop' })).toBe('');
    expect(brandLogo('Org', undefined)).toBe('');
  });

  it("colours the buttons with a text colour that contrasts, and leaves the page's own without a colour", () => {
    expect(brandStyle({ color: '#fefefe' })).toContain('button{background:#fefefe;color:#000000}');
    expect(brandStyle({ color: '#0a0a23' })).toContain('button{background:#0a0a23;color:#ffffff}');
    expect(brandStyle(undefined)).not.toContain('button');
  });
});
