import type { InsertOnceResult, Scope } from '@checkout/mongo';
import type { OutboxEntry } from '@checkout/kafka';
import type {
  ApplyPaymentOutcome,
  Location,
  Order,
  OrderSnapshot,
  PaymentDestinationView,
  PaymentMethod,
  ShippingAddress,
} from '@checkout/contracts';
import type { CollectedInputs, OrderCopy, SessionDocument } from '../store/session.document';

/** The session's order as orders presents it: what a session keeps a copy of and shows. */
export type OrderView = Order;
export type { OrderSnapshot };
/** Of a payment destination, what the hosted page decides with (D38). */
export type PaymentDestination = Pick<PaymentDestinationView, 'id' | 'address' | 'status' | 'verified'>;

/**
 * Orders, as the session flows need it (clients/orders.client.ts calls its internal API). Every answer about an
 * order carries the revision orders stored, so a session keeps the newest copy.
 */
export interface Orders {
  /** The session id is the Idempotency-Key of the create: a retry meets the order it made. */
  create(scope: Scope, input: unknown, idempotencyKey: string): Promise<OrderSnapshot & { created: boolean }>;
  get(scope: Scope, orderId: string): Promise<OrderSnapshot>;
  update(
    scope: Scope,
    orderId: string,
    patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } },
  ): Promise<OrderSnapshot>;
  cancel(scope: Scope, orderId: string): Promise<OrderSnapshot>;
  /** The session expired: orders refuses payments from now on; the answer says whether a payment won first. */
  closePayments(scope: Scope, orderId: string): Promise<OrderSnapshot>;
  /** Applied at most once by its payment id (D27); `amount` omitted: what is still due. */
  applyPayment(
    scope: Scope,
    orderId: string,
    payment: { paymentId: string; amount?: number; method: PaymentMethod },
  ): Promise<OrderSnapshot & { outcome: ApplyPaymentOutcome }>;
  listLocations(scope: Scope): Promise<Pick<Location, 'id' | 'name'>[]>;
  /** The destination an order names (its `pd_` id or its address), whatever its state; null: none. */
  findPaymentDestination(scope: Scope, destination: string): Promise<PaymentDestination | null>;
}

export type { OrderCopy };

/**
 * The sessions collection (store/sessions.store.ts): reads, and the named conditional writes, each of which returns
 * the session as written or null when it is no longer in the state the change was decided on.
 */
export interface Sessions {
  insertSession(
    scope: Scope,
    doc: Omit<SessionDocument, 'organizationId' | 'mode'>,
  ): Promise<InsertOnceResult<SessionDocument>>;
  getSession(scope: Scope, id: string): Promise<SessionDocument | null>;
  listSessions(scope: Scope, page: number, limit: number): Promise<{ sessions: SessionDocument[]; total: number }>;
  findByOrderId(scope: Scope, orderId: string): Promise<SessionDocument | null>;
  findByIdAcrossTenants(id: string): Promise<SessionDocument | null>;
  findDuePendingAcrossTenants(now: Date, limit: number): Promise<SessionDocument[]>;
  complete(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; event: OutboxEntry; now: Date },
  ): Promise<SessionDocument | null>;
  expire(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; expiresAt: Date; event: OutboxEntry; now: Date },
  ): Promise<SessionDocument | null>;
  cancel(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; now: Date },
  ): Promise<SessionDocument | null>;
  takeOrderCopy(scope: Scope, id: string, copy: OrderCopy, settledOnly: boolean): Promise<SessionDocument | null>;
  updateSession(
    scope: Scope,
    read: SessionDocument,
    change: { expiresAt?: Date | undefined; sessionDataJson?: string | undefined; now: Date },
  ): Promise<SessionDocument | null>;
  collectInputs(
    scope: Scope,
    read: SessionDocument,
    change: { inputs: CollectedInputs; copy?: OrderCopy | undefined; now: Date },
  ): Promise<SessionDocument | null>;
  countDeclined(scope: Scope, id: string, now: Date): Promise<SessionDocument | null>;
}
