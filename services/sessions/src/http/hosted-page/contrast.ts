// WCAG 2.x contrast (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio), for the merchant's button colour.

export const AA_NORMAL_TEXT = 4.5;

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!match) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(match[1]!, 16), parseInt(match[2]!, 16), parseInt(match[3]!, 16)];
}

const toHex = (rgb: Rgb): string => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** WCAG's relative luminance, 0 (black) to 1 (white). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The ratio between two colours, 1 to 21, whichever is lighter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever contrasts more with `background`. */
export function bestTextColour(background: string): '#000000' | '#ffffff' {
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** The colour moved `step` of the way towards `target` (0 stays, 1 is the target). */
function mix(hex: string, target: Rgb, step: number): string {
  return toHex(parseHex(hex).map((c, i) => Math.round(c + (target[i]! - c) * step)) as Rgb);
}

/**
 * A button's background and text: the merchant's colour with black or white text, whichever contrasts more. On an
 * opaque colour one of the two always reaches about 4.58:1, so AA (4.5:1) keeps the colour as chosen; a stricter
 * `minimum` (AAA's 7:1) may not, and then the colour is shaded (darkened under white text, lightened under black)
 * in small steps until it does: a colour is adjusted, never refused.
 */
export function accessibleButton(
  colour: string,
  minimum = AA_NORMAL_TEXT,
): { background: string; text: '#000000' | '#ffffff' } {
  const text = bestTextColour(colour);
  const towards: Rgb = text === '#ffffff' ? [0, 0, 0] : [255, 255, 255];
  for (let step = 0; step <= 20; step++) {
    const background = mix(colour, towards, step / 20);
    if (contrastRatio(background, text) >= minimum) return { background, text };
  }
  return { background: toHex(towards), text };
}
