import type { DefaultLocale, Mode, PaymentMethod } from '@checkout/contracts';

export interface OrganizationDocument {
  _id: string;
  name: string;
  createdAt: Date;
}

export interface ApiKeyDocument {
  /** The key's lookup id: every authenticated request finds its key by _id. */
  _id: string;
  /** The id operators see and revoke by. */
  keyId: string;
  hash: string;
  last4: string;
  organizationId: string;
  mode: Mode;
  status: 'active' | 'revoked';
  createdAt: Date;
  revokedAt?: Date;
}

export interface CheckoutSettingsDocument {
  _id: string; // `${organizationId}:${mode}`
  organizationId: string;
  mode: Mode;
  defaultCallbackUrl: string | null;
  enabledPaymentMethods: PaymentMethod[];
  webhookSigningSecret: string | null;
  previousWebhookSigningSecret?: PreviousSigningSecret | null;
  /** The hosted page's brand: absent from documents stored before it (read as null). */
  displayName?: string | null;
  brandColor?: string | null;
  logoUrl?: string | null;
  defaultLocale?: DefaultLocale | null;
  updatedAt: Date;
}

/** The secret a rotation replaced, still signed with until `until` (D35). */
export interface PreviousSigningSecret {
  secret: string;
  until: Date;
}
