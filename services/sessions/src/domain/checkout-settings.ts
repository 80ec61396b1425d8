import { DomainError } from '@checkout/errors';
import {
  INTERNAL_API_HEADERS,
  PAYMENT_METHODS,
  decodeCheckoutSettingsHeader,
  type CheckoutSettingsHeader,
} from '@checkout/contracts';

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
