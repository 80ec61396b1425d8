import { DomainError } from '@checkout/errors';
import {
  INTERNAL_API_HEADERS,
  PAYMENT_METHODS,
  decodeCheckoutSettingsHeader,
  type CheckoutSettingsHeader,
  type DefaultLocale,
} from '@checkout/contracts';
import type { SessionBrand } from '../store/session.document';

// The header and its codec are libs/contracts' (the gateway writes it, sessions reads it).

/** Used when a caller sends no settings (e.g. an operator calling the internal API directly). */
export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettingsHeader = {
  organizationName: 'Merchant',
  defaultCallbackUrl: null,
  enabledPaymentMethods: [...PAYMENT_METHODS],
};

/** Parses the header; absent → defaults; present but malformed → INVALID_REQUEST (a gateway bug, said loudly). */
export function parseCheckoutSettings(header: string | undefined): CheckoutSettingsHeader {
  if (!header) return DEFAULT_CHECKOUT_SETTINGS;
  const decoded = decodeCheckoutSettingsHeader(header);
  if (!decoded.ok)
    throw new DomainError(
      'INVALID_REQUEST',
      `${INTERNAL_API_HEADERS.checkoutSettings} is ${decoded.error === 'malformed' ? 'malformed' : 'not base64url JSON'}.`,
    );
  return { ...decoded.value, enabledPaymentMethods: [...new Set(decoded.value.enabledPaymentMethods)] };
}

/**
 * The brand a new session keeps (copied, as its organization's name is): the page then renders from the session
 * alone, with no call to the gateway on the payment path, and a session looks the same from its first view to its
 * last. Unset parts are left out, so a session without a brand stores nothing more.
 */
export function brandOfNewSession(settings: CheckoutSettingsHeader): SessionBrand | undefined {
  const brand: SessionBrand = {
    ...(settings.displayName && { displayName: settings.displayName }),
    ...(settings.brandColor && { color: settings.brandColor.toLowerCase() }),
    ...(settings.logoUrl && { logoUrl: settings.logoUrl }),
  };
  return Object.keys(brand).length > 0 ? brand : undefined;
}

/** The locale of a new session: the one the merchant asked for, else its checkout settings' default, else `auto`. */
export function localeOfNewSession(
  requested: DefaultLocale | undefined,
  settings: Pick<CheckoutSettingsHeader, 'defaultLocale'>,
): DefaultLocale {
  return requested ?? settings.defaultLocale ?? 'auto';
}
