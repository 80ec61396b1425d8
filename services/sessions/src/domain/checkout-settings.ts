import { z } from 'zod';
import { DomainError } from '@checkout/errors';
import { HttpUrl, PAYMENT_METHODS, PaymentMethod } from '@checkout/contracts';

/** The header in which the gateway forwards the organization's checkout settings (base64url JSON). */
export const CHECKOUT_SETTINGS_HEADER = 'x-checkout-settings';

const CheckoutSettingsSchema = z.object({
  organizationName: z.string().max(200),
  defaultCallbackUrl: HttpUrl.nullable(),
  enabledPaymentMethods: z.array(PaymentMethod).max(PAYMENT_METHODS.length),
});
export type CheckoutSettings = z.infer<typeof CheckoutSettingsSchema>;

/** Used when a caller sends no settings (e.g. an operator calling the internal API directly). */
export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  organizationName: 'Merchant',
  defaultCallbackUrl: null,
  enabledPaymentMethods: [...PAYMENT_METHODS],
};

export function encodeCheckoutSettings(settings: CheckoutSettings): string {
  return Buffer.from(JSON.stringify(settings), 'utf8').toString('base64url');
}

/** Parses the header; absent → defaults; present but malformed → INVALID_REQUEST (a gateway bug, said loudly). */
export function parseCheckoutSettings(header: string | undefined): CheckoutSettings {
  if (!header) return DEFAULT_CHECKOUT_SETTINGS;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    throw new DomainError('INVALID_REQUEST', `${CHECKOUT_SETTINGS_HEADER} is not base64url JSON.`);
  }
  const parsed = CheckoutSettingsSchema.safeParse(raw);
  if (!parsed.success) throw new DomainError('INVALID_REQUEST', `${CHECKOUT_SETTINGS_HEADER} is malformed.`);
  return { ...parsed.data, enabledPaymentMethods: [...new Set(parsed.data.enabledPaymentMethods)] };
}
