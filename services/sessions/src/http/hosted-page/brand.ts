import { escapeHtml as e, markup } from '@checkout/html';
import type { SessionBrand } from '../../store/session.document';
import { accessibleButton } from './contrast';

// The merchant's brand on the hosted page: its display name, its logo and its colour on the page's buttons.

/** The name the page shows: the brand's display name, else the organization's. */
export const shownName = (organizationName: string, brand: SessionBrand | undefined): string =>
  brand?.displayName ?? organizationName;

/**
 * The logo: an https URL (checkout settings refuse any other, and the CSP's img-src allows https: only), fetched
 * without a referrer so the logo's host never learns the session's URL.
 */
export function brandLogo(name: string, brand: SessionBrand | undefined): string {
  if (!brand?.logoUrl) return '';
  return markup`
    <img class="logo" src="${e(brand.logoUrl)}" alt="${e(name)} logo" referrerpolicy="no-referrer"
      data-testid="brand-logo">`;
}

/** The rules that follow the page's own: the buttons in the brand's colour, with text that keeps AA contrast. */
export function brandStyle(brand: SessionBrand | undefined): string {
  const logo = '.logo{display:block;max-height:3rem;max-width:12rem;margin:0 0 .5rem}';
  if (!brand?.color) return logo;
  const { background, text } = accessibleButton(brand.color);
  return `${logo}\nbutton{background:${background};color:${text}}`;
}
