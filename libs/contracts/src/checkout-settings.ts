import { z } from 'zod';
import { nonBlankString } from './common';
import { SESSION_LOCALES } from './sessions';

// The merchant's brand on the hosted page: checkout settings the gateway stores (GET/PATCH /v0/checkout_settings,
// the dashboard's Settings page) and sends to sessions with every session create (x-checkout-settings).

export const DefaultLocale = z
  .enum(['auto', ...SESSION_LOCALES])
  .describe("The locale of sessions created without one; `auto` (or null) negotiates from the browser's languages.");
export type DefaultLocale = z.infer<typeof DefaultLocale>;

export const DISPLAY_NAME_MAX = 80;
export const LOGO_URL_MAX = 2048;

export const DisplayName = nonBlankString(DISPLAY_NAME_MAX).describe(
  "The name the hosted page shows; null shows the organization's name.",
);
export const BrandColor = z
  .string()
  .max(7)
  .regex(/^#[0-9a-fA-F]{6}$/, { error: 'brandColor must be #rrggbb' })
  .describe("The page's button colour, `#rrggbb`; its text colour (and, if need be, a shade of it) keeps 4.5:1.");

const isHttpsUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
};
export const LogoUrl = z
  .string()
  .max(LOGO_URL_MAX)
  // As written: the URL parser would trim and rewrite what the page then puts in its <img>. ASCII only, as a URI
  // (RFC 3986) is: an international domain in its xn-- form, other characters percent-encoded.
  .regex(/^https:\/\/[\x21-\x7E]+$/i, { error: 'logoUrl must be an absolute https URL, in ASCII' })
  .refine(isHttpsUrl, { error: 'logoUrl must be an absolute https URL, in ASCII' })
  .meta({
    format: 'uri',
    description: `The logo the hosted page shows, an https URL of at most ${LOGO_URL_MAX}, in ASCII (a URI: an international domain in its xn-- form).`,
  });

/** The brand fields, each null when unset (documents stored before them read as null). */
export const brandShape = {
  displayName: DisplayName.nullable(),
  brandColor: BrandColor.nullable(),
  logoUrl: LogoUrl.nullable(),
  defaultLocale: DefaultLocale.nullable(),
};
export const CheckoutBrand = z.object(brandShape);
export type CheckoutBrand = z.infer<typeof CheckoutBrand>;
export const NO_BRAND: CheckoutBrand = { displayName: null, brandColor: null, logoUrl: null, defaultLocale: null };

export const CheckoutSettingsResponse = z
  .object({ checkoutSettings: CheckoutBrand.meta({ id: 'CheckoutSettings' }) })
  .meta({
    id: 'CheckoutSettingsResponse',
    description: "The hosted page's settings of this key's organization and mode.",
  });
export type CheckoutSettingsResponse = z.infer<typeof CheckoutSettingsResponse>;

/** A change: an absent field stays as it is, null clears it. */
export const UpdateCheckoutSettingsRequest = z
  .strictObject({
    displayName: brandShape.displayName.optional(),
    brandColor: brandShape.brandColor.optional(),
    logoUrl: brandShape.logoUrl.optional(),
    defaultLocale: brandShape.defaultLocale.optional(),
  })
  .meta({ id: 'UpdateCheckoutSettingsRequest' });
export type UpdateCheckoutSettingsRequest = z.infer<typeof UpdateCheckoutSettingsRequest>;
