import type { ScopedDocument, StoredEntry } from '@checkout/mongo';
import type { OutboxFields } from '@checkout/kafka';
import type { OrderStatus, PaymentStatus, RefundFailureReason, RefundReason, RefundStatus } from '@checkout/contracts';

interface StoredAmounts {
  subtotal: number;
  tax: number;
  discount: number;
  tip: number;
  total: number;
  paid: number;
  /** Σ succeeded refunds (D48). Absent on orders stored before refunds existed: read it as 0. */
  refunded?: number;
}

export interface StoredItem {
  id: string;
  name: string;
  quantity: number;
  unitPrice: number;
  totalPrice: number;
  itemType: 'product';
}

export interface StoredTax {
  id: string;
  name: string;
  type: 'additive';
  amount: number;
}

export interface StoredDiscount {
  id: string;
  name: string;
  type: 'fixed' | 'percentage';
  amount: number;
}

export interface StoredCustomer {
  id: string;
  email: string;
  name?: string;
  phone?: string;
}

export interface StoredAddress {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  state?: string;
  postalCode?: string;
  country: string;
}

export interface AppliedPayment {
  paymentId: string;
  amount: number;
  method: string;
  appliedAt: Date;
}

/** One refund of the order (D48), kept in the order so that the one conditional write admitting it sees them all. */
export interface StoredRefund {
  /** `re_<mode>_<suffix>`; served by the refunds_id index (GET /v0/refunds/:id, the processor's notifications). */
  id: string;
  amount: number;
  status: RefundStatus;
  reason: RefundReason | null;
  failureReason?: RefundFailureReason;
  metadata: StoredEntry<string>[];
  createdAt: Date;
  updatedAt: Date;
}

export interface OrderDocument extends ScopedDocument, OutboxFields {
  _id: string;
  uniqueKey: string;
  creationKey: string;
  /** The checkout session this order was created for (D46: orders names it on its answers). Internal. */
  checkoutSessionId?: string;
  externalId?: string;
  provider: 'native' | 'square' | 'clover';
  currency: string;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  amounts: StoredAmounts;
  customer?: StoredCustomer;
  items: StoredItem[];
  taxes: StoredTax[];
  discounts: StoredDiscount[];
  shippingAddress?: StoredAddress;
  locationId?: string;
  paymentDestination?: string;
  metadata: StoredEntry<string>[];
  payments: AppliedPayment[];
  /** Oldest first, at most REFUNDS_PER_ORDER_MAX. Absent on orders stored before refunds existed (D48): none. */
  refunds?: StoredRefund[];
  /**
   * Set when the checkout session that would pay this order expired: from then on no payment is applied. The
   * expiry and a payment racing it are decided here, by which of the two conditional updates of this order
   * lands first (sessions asks for it before storing `expired`). Internal: never presented.
   */
  paymentsClosed?: boolean;
  /**
   * D52: this order's balance transactions are the ledger consumer's to build (every order created since it
   * exists), or the backfill (migration orders.0002) built those of its movements before then. Internal.
   */
  balanceLines?: true;
  /**
   * Its externalId is held by a document of `order_external_ids` naming this order (every order created with one
   * since those exist, or migration orders.0003 reserved it): the uniqueness a sharded orders collection keeps
   * (docs/operations.md, "Shard keys"). Internal.
   */
  externalIdReserved?: true;
  paidAt?: Date;
  cancelledAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}
