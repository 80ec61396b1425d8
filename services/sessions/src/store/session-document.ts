import type { ScopedDocument } from '@checkout/mongo';
import type { OutboxFields } from '@checkout/kafka';
import type { PaymentMethod, RequireFromCustomer, SessionStatus, ShippingAddress } from '@checkout/contracts';

/** What the customer entered on the hosted page because requireFromCustomer asked for it. */
export interface CollectedInputs {
  phone?: string;
  shippingAddress?: ShippingAddress;
  locationId?: string;
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
  /** sessionData as JSON text: its keys are the merchant's and may contain "." or "$". */
  sessionDataJson: string;
  /** Checkout settings snapshotted at creation (the gateway sends them in x-checkout-settings). */
  organizationName: string;
  enabledPaymentMethods: PaymentMethod[];
  collected: CollectedInputs;
  createdAt: Date;
  updatedAt: Date;
}

export type PaymentRecordStatus = 'pending' | 'applied' | 'declined' | 'rejected';

/** One payment attempt; _id is the payment id, so a payment id is recorded (and applied) at most once. */
export interface PaymentDocument extends ScopedDocument {
  _id: string;
  sessionId: string;
  orderId: string;
  method: PaymentMethod;
  amount: number;
  status: PaymentRecordStatus;
  /** Cards only, and only ever the last four digits. */
  cardLast4?: string;
  source: 'simulator' | 'processor';
  createdAt: Date;
  updatedAt: Date;
}
