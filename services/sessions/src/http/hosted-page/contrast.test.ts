import { describe, expect, it } from 'vitest';
import { AA_NORMAL_TEXT, accessibleButton, bestTextColour, contrastRatio, relativeLuminance } from './contrast';

describe('contrast (WCAG 2.x)', () => {
  it('measures luminance and ratios as WCAG defines them', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBe(1);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('picks the text colour that contrasts more', () => {
    expect(bestTextColour('#fefefe')).toBe('#000000');
    expect(bestTextColour('#0a0a23')).toBe('#ffffff');
    expect(bestTextColour('#1d4ed8')).toBe('#ffffff');
    expect(bestTextColour('#ffe600')).toBe('#000000');
  });

  it('keeps a colour whose best text already passes AA', () => {
    expect(accessibleButton('#ffffff')).toEqual({ background: '#ffffff', text: '#000000' });
    expect(accessibleButton('#000000')).toEqual({ background: '#000000', text: '#ffffff' });
    expect(accessibleButton('#1d4ed8')).toEqual({ background: '#1d4ed8', text: '#ffffff' });
  });

  it('keeps a mid grey under AA, where black text still reaches 4.5:1 (the least any colour gives is ~4.58)', () => {
    expect(accessibleButton('#777777')).toEqual({ background: '#777777', text: '#000000' });
    expect(contrastRatio('#777777', '#000000')).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(AA_NORMAL_TEXT);
  });

  it('shades a colour whose best text fails the minimum until it passes', () => {
    for (const grey of ['#777777', '#808080', '#6a6a6a']) {
      const button = accessibleButton(grey, 7);
      expect(button.background, grey).not.toBe(grey);
      expect(contrastRatio(button.background, button.text), grey).toBeGreaterThanOrEqual(7);
    }
    // Lightened under black text, darkened under white.
    expect(relativeLuminance(accessibleButton('#808080', 7).background)).toBeGreaterThan(relativeLuminance('#808080'));
    expect(relativeLuminance(accessibleButton('#5a5a5a', 7).background)).toBeLessThan(relativeLuminance('#5a5a5a'));
  });

  it('passes AA for every colour, from very light to very dark', () => {
    for (let v = 0; v < 256; v += 5)
      for (const hex of [
        `#${v.toString(16).padStart(2, '0').repeat(3)}`,
        `#${v.toString(16).padStart(2, '0')}8040`,
        `#40${v.toString(16).padStart(2, '0')}c0`,
      ]) {
        const { background, text } = accessibleButton(hex);
        expect(contrastRatio(background, text), hex).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
      }
  });
});
