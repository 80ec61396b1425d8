import { randomBytes } from 'node:crypto';
import {
  NO_BRAND,
  PAYMENT_METHODS,
  type CheckoutBrand,
  type Mode,
  type PaymentMethod,
  type UpdateCheckoutSettingsRequest,
} from '@checkout/contracts';
import type { PreviousSigningSecret } from '../store/organization.document';

/** An organization's checkout settings for one mode (D22, D26, D35), with the hosted page's brand. */
export interface CheckoutSettings extends CheckoutBrand {
  defaultCallbackUrl: string | null;
  enabledPaymentMethods: PaymentMethod[];
  webhookSigningSecret: string | null;
  previousWebhookSigningSecret: PreviousSigningSecret | null;
}

/** D26: all three methods enabled by default in test mode; live mode starts with card only. */
export function defaultCheckoutSettings(mode: Mode): CheckoutSettings {
  return {
    defaultCallbackUrl: null,
    enabledPaymentMethods: mode === 'test' ? [...PAYMENT_METHODS] : ['card'],
    webhookSigningSecret: null,
    previousWebhookSigningSecret: null,
    ...NO_BRAND,
  };
}

/**
 * How long deliveries stay signed with a secret after a rotation replaced it (D35): receivers that still
 * hold the old secret keep verifying (Standard Webhooks: one signature per secret) while the merchant deploys
 * the new one. Turning signing off ends it at once.
 */
export const SIGNING_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * A change of checkout settings (the admin API's PATCH, and the brand's through the public API and the dashboard):
 * an absent field stays as it is, null clears it.
 */
export interface CheckoutSettingsPatch extends UpdateCheckoutSettingsRequest {
  defaultCallbackUrl?: string | null | undefined;
  enabledPaymentMethods?: PaymentMethod[] | undefined;
  /** true generates a new whsec_ secret (shown once); false removes signing. */
  webhookSigning?: boolean | undefined;
}

/** The replaced secret that still signs (D35): the current one on a rotation, none once signing is off. */
function nextPreviousSecret(
  current: CheckoutSettings,
  webhookSigning: boolean | undefined,
  now: Date,
): PreviousSigningSecret | null {
  if (webhookSigning === false) return null;
  if (webhookSigning === true && current.webhookSigningSecret !== null)
    return { secret: current.webhookSigningSecret, until: new Date(now.getTime() + SIGNING_SECRET_OVERLAP_MS) };
  return stillSigning(current.previousWebhookSigningSecret, now);
}

const stillSigning = (previous: PreviousSigningSecret | null, now: Date): PreviousSigningSecret | null =>
  previous && previous.until > now ? previous : null;

/**
 * The settings after `patch`, and the new signing secret when the patch asked for one (D35: shown once, to the
 * operator who rotated it).
 */
export function patchCheckoutSettings(
  current: CheckoutSettings,
  patch: CheckoutSettingsPatch,
  now: Date,
): { settings: CheckoutSettings; newSecret: string | undefined } {
  const newSecret = patch.webhookSigning === true ? `whsec_${randomBytes(24).toString('base64')}` : undefined;
  return {
    settings: {
      defaultCallbackUrl:
        patch.defaultCallbackUrl === undefined ? current.defaultCallbackUrl : patch.defaultCallbackUrl,
      enabledPaymentMethods: patch.enabledPaymentMethods ?? current.enabledPaymentMethods,
      webhookSigningSecret: patch.webhookSigning === undefined ? current.webhookSigningSecret : (newSecret ?? null),
      previousWebhookSigningSecret: nextPreviousSecret(current, patch.webhookSigning, now),
      ...patchedBrand(current, patch),
    },
    newSecret,
  };
}

function patchedBrand(current: CheckoutBrand, patch: UpdateCheckoutSettingsRequest): CheckoutBrand {
  const pick = <K extends keyof CheckoutBrand>(key: K): CheckoutBrand[K] =>
    patch[key] === undefined ? current[key] : (patch[key] as CheckoutBrand[K]);
  return {
    displayName: pick('displayName'),
    brandColor: pick('brandColor')?.toLowerCase() ?? null,
    logoUrl: pick('logoUrl'),
    defaultLocale: pick('defaultLocale'),
  };
}

/** The brand and default locale alone: what the public API and the dashboard show and change. */
export const brandOf = ({ displayName, brandColor, logoUrl, defaultLocale }: CheckoutBrand): CheckoutBrand => ({
  displayName,
  brandColor,
  logoUrl,
  defaultLocale,
});

/** Until when the secret a rotation replaced still signs, if it still does (D35). */
export function previousSecretSignsUntil(settings: CheckoutSettings, now: Date): Date | undefined {
  return stillSigning(settings.previousWebhookSigningSecret, now)?.until;
}

/**
 * Every secret deliveries are signed with at `now` (D35): the current one first, then, during a rotation's
 * overlap, the one it replaced; none while signing is off.
 */
export function signingSecrets(settings: CheckoutSettings, now: Date): string[] {
  if (settings.webhookSigningSecret === null) return [];
  const previous = stillSigning(settings.previousWebhookSigningSecret, now);
  return previous ? [settings.webhookSigningSecret, previous.secret] : [settings.webhookSigningSecret];
}
