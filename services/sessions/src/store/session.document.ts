import type { ScopedDocument } from '@checkout/mongo';
import type { OutboxFields } from '@checkout/kafka';
import type {
  PaymentMethod,
  RequireFromCustomer,
  SessionLocale,
  SessionStatus,
  ShippingAddress,
} from '@checkout/contracts';

/** What the customer entered on the hosted page because requireFromCustomer asked for it. */
export interface CollectedInputs {
  phone?: string;
  shippingAddress?: ShippingAddress;
  locationId?: string;
}

/** What the hosted page shows of the merchant besides its name: each part optional. */
export interface SessionBrand {
  displayName?: string;
  /** `#rrggbb`, lower case. */
  color?: string;
  logoUrl?: string;
}

export interface SessionDocument extends ScopedDocument, OutboxFields {
  _id: string;
  orderId: string;
  /** Stored status; a read derives the effective one (D21, D25), see domain/session.ts effectiveStatus. */
  status: SessionStatus;
  successUrl: string | null;
  callbackUrl: string | null;
  expiresAt: Date;
  failedAttempts: number;
  requireFromCustomer: RequireFromCustomer;
  /** The hosted page's language (D53); absent on a session stored before it, which reads as `auto`. */
  locale?: SessionLocale;
  /** sessionData as JSON text: its keys are the merchant's and may contain "." or "$". */
  sessionDataJson: string;
  /** Checkout settings snapshotted at creation (the gateway sends them in x-checkout-settings). */
  organizationName: string;
  enabledPaymentMethods: PaymentMethod[];
  /** The merchant's brand, snapshotted likewise; absent from sessions created before it (and when none is set). */
  brand?: SessionBrand;
  collected: CollectedInputs;
  /**
   * The session's copy of its order, as orders presented it (JSON text: metadata keys are the merchant's and
   * may contain "." or "$"), and that answer's or event's revision. Set at creation from orders' answer,
   * replaced by any newer answer of a call sessions makes and by newer order events; reads present it and
   * never call orders.
   */
  orderJson: string;
  orderRevision: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A copy of the session's order as orders presented it, with the revision of that answer or event. */
export type OrderCopy = Pick<SessionDocument, 'orderJson' | 'orderRevision'>;
