import { isDomainError } from '@checkout/errors';
import {
  PAYMENT_METHODS,
  Phone,
  ShippingAddress,
  type CheckoutSession,
  type PaymentMethod,
  type RequireFromCustomer,
} from '@checkout/contracts';
import type { CollectedInputs, SessionDocument } from '../store/session.document';
import { paySession } from './pay-session.flow';
import { acceptsPayments } from './payment-destination';
import { PAYMENT_METHOD_TABLE, offers, type NoticeCode, type OfferContext } from './payment-methods';
import { presentSession } from './session.presenter';
import { effectiveStatus } from './session';
import {
  copyFields,
  mergeIntoSession,
  newerCopy,
  orderOf,
  scopeOf,
  sessionNotPayable,
  type SessionDeps,
  type SessionWithOrder,
} from './session-writes';

/** What the hosted page shows of a session, with what its pending form needs from orders. */
export interface HostedPageView extends SessionWithOrder {
  session: CheckoutSession;
  /** The methods the form offers (D26), in the table's order. */
  methods: PaymentMethod[];
  /** The order's destination no longer takes payments: the page says so. */
  destinationUnavailable: boolean;
  /** Where a stablecoin payment goes, when the order names a destination that takes payments. */
  payTo?: string | undefined;
  /** The organization's locations, when requireFromCustomer asks for one. */
  locations: { id: string; name: string }[];
}

/** What the page answers a submitted form with: a redirect to successUrl, or back to itself with a notice. */
export type HostedPayment =
  { kind: 'not_found' } | { kind: 'paid'; successUrl: string } | { kind: 'back'; notice?: NoticeCode };

/**
 * The hosted payment page's use cases (D26, D27, D41): public, identified by the session id alone (the
 * unguessable id is the capability), so the tenant is taken from the session found. The http layer renders and
 * redirects; everything that reads or writes a session or asks orders is here.
 */
export class HostedPage {
  constructor(private readonly deps: SessionDeps) {}

  /** The session as the page shows it; for a pending one, the offered methods, its destination and locations. */
  async view(id: string): Promise<HostedPageView | null> {
    const doc = await this.deps.store.findByIdAcrossTenants(id);
    if (!doc) return null;
    const order = orderOf(doc);
    const session = presentSession(doc, order, this.deps.clock(), this.deps.checkoutBaseUrl);
    const view: HostedPageView = { doc, order, session, methods: [], destinationUnavailable: false, locations: [] };
    if (session.status !== 'pending') return view;
    const scope = scopeOf(doc);
    // Only the destination the order names is read, and only when a method the session enables shows it.
    const named = order.paymentDestination ?? undefined;
    const shown =
      named !== undefined && doc.enabledPaymentMethods.some((m) => PAYMENT_METHOD_TABLE[m].showsDestination);
    const destination = shown ? await this.deps.orders.findPaymentDestination(scope, named) : null;
    const accepting = acceptsPayments(destination);
    const context: OfferContext = {
      destination: () => Promise.resolve(!shown ? 'none' : accepting ? 'accepting' : 'unavailable'),
    };
    for (const method of PAYMENT_METHODS) {
      if ((await offers(doc.enabledPaymentMethods, method, context)) === true) view.methods.push(method);
    }
    view.destinationUnavailable = shown && !accepting;
    view.payTo = accepting ? destination?.address : undefined;
    if (session.requireFromCustomer.location) view.locations = await this.deps.orders.listLocations(scope);
    return view;
  }

  /** The session as the page's poll reads it (one read, no call to orders). */
  async state(id: string): Promise<CheckoutSession | null> {
    const doc = await this.deps.store.findByIdAcrossTenants(id);
    return doc && presentSession(doc, orderOf(doc), this.deps.clock(), this.deps.checkoutBaseUrl);
  }

  /**
   * A customer's POST of the form (test mode; live payments come from the processor): the inputs requireFromCustomer
   * asks for are stored before any payment is attempted (D26), then the method's simulator (the table, D27) says
   * what is paid, through the one pay flow (D27).
   */
  async pay(id: string, form: URLSearchParams): Promise<HostedPayment> {
    const found = await this.deps.store.findByIdAcrossTenants(id);
    if (!found) return { kind: 'not_found' };
    const order = orderOf(found);
    if (
      found.mode !== 'test' ||
      effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()) !== 'pending'
    )
      return { kind: 'back' };
    const method = form.get('method');
    if (!isPaymentMethod(method)) return { kind: 'back', notice: 'method' };
    const offered = await offers(found.enabledPaymentMethods, method, this.offerContext(found));
    if (offered !== true) return { kind: 'back', notice: offered };
    const inputs = collectedInputs(form, found.requireFromCustomer);
    if (inputs === null) return { kind: 'back', notice: 'required' };
    if (found.requireFromCustomer.location) {
      const locations = await this.deps.orders.listLocations(scopeOf(found));
      if (!locations.some((l) => l.id === inputs.locationId)) return { kind: 'back', notice: 'required' };
    }
    const simulated = PAYMENT_METHOD_TABLE[method].simulate(form);
    if (typeof simulated === 'string') return { kind: 'back', notice: simulated };
    try {
      const current = Object.keys(inputs).length > 0 ? await this.collectInputs(found, inputs) : found;
      const { view, result } = await paySession(this.deps, current, { source: 'simulator', method, ...simulated });
      if (result === 'declined') return { kind: 'back', notice: 'declined' };
      const now = effectiveStatus(view.doc.status, view.order.status, view.doc.expiresAt, this.deps.clock());
      if (now !== 'completed') return { kind: 'back', notice: 'paid_partial' };
      // Flow 3: the completed event is already on Kafka (the pay flow published it) before the customer moves on.
      return view.doc.successUrl ? { kind: 'paid', successUrl: view.doc.successUrl } : { kind: 'back' };
    } catch (err) {
      if (isDomainError(err) && (err.code === 'SESSION_NOT_PAYABLE' || err.code === 'ORDER_NOT_EDITABLE'))
        return { kind: 'back', notice: 'not_payable' };
      throw err;
    }
  }

  /** What a method's availability may ask: the destination the order names, read only when asked. */
  offerContext(doc: SessionDocument): OfferContext {
    return {
      destination: async () => {
        const named = orderOf(doc).paymentDestination;
        if (!named) return 'none';
        const destination = await this.deps.orders.findPaymentDestination(scopeOf(doc), named);
        return destination && acceptsPayments(destination) ? 'accepting' : 'unavailable';
      },
    };
  }

  /**
   * Stores what the page collected on the pending session, and what fits on the order: orders is updated first (no
   * session state is held across the call), then the session takes the inputs and orders' answer in one write,
   * merged again into what won if another write landed in between.
   */
  private async collectInputs(found: SessionDocument, inputs: CollectedInputs): Promise<SessionDocument> {
    const scope = scopeOf(found);
    const order = orderOf(found);
    const patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } } = {};
    if (inputs.shippingAddress) patch.shippingAddress = inputs.shippingAddress;
    // An order's customer needs an email; without a customer the phone stays on the session only.
    if (inputs.phone && order.customer) patch.customer = { phone: inputs.phone };
    const updated =
      Object.keys(patch).length > 0 ? await this.deps.orders.update(scope, found.orderId, patch) : undefined;
    return mergeIntoSession(this.deps, found, async (current) => {
      if (current.status !== 'pending') throw sessionNotPayable(current.status);
      const newer = newerCopy(current, updated);
      return this.deps.store.collectInputs(scope, current, {
        inputs,
        copy: newer && copyFields(newer),
        now: this.deps.clock(),
      });
    });
  }
}

function isPaymentMethod(value: string | null): value is PaymentMethod {
  return value !== null && Object.hasOwn(PAYMENT_METHOD_TABLE, value);
}

/** The inputs requireFromCustomer asks for, validated; null when one is missing or invalid. */
function collectedInputs(form: URLSearchParams, required: RequireFromCustomer): CollectedInputs | null {
  const out: CollectedInputs = {};
  const text = (name: string) => {
    const v = (form.get(name) ?? '').trim();
    return v === '' ? undefined : v;
  };
  if (required.phone) {
    const phone = Phone.safeParse(text('phone') ?? '');
    if (!phone.success) return null;
    out.phone = phone.data;
  }
  if (required.shippingAddress) {
    const raw = {
      name: text('shipName'),
      line1: text('line1'),
      line2: text('line2'),
      city: text('city'),
      state: text('state'),
      postalCode: text('postalCode'),
      country: text('country')?.toUpperCase(),
    };
    const address = ShippingAddress.safeParse(
      Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)),
    );
    if (!address.success) return null;
    out.shippingAddress = address.data;
  }
  if (required.location) {
    const locationId = text('locationId');
    if (!locationId) return null;
    out.locationId = locationId;
  }
  return out;
}
