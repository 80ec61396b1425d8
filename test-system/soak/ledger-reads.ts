import type { Db } from '@checkout/mongo';
import { inParallel } from '@checkout/testing';
import type { CheckoutSession, Delivery, WebhookEvent } from '@checkout/contracts';
import { reportsBesideBalance } from './books-reports';
import { sendWithRetries, type RecordingClient } from './client';
import type {
  BooksInput,
  EventWithDeliveries,
  SessionWebhookEvent,
  StoredBalance,
  StoredBalanceLine,
  StoredOrder,
} from './ledger-types';
import type { OwedEvent } from './endpoint-deliveries';
import type { Journey, Merchant } from './journey-types';

// What the ledger reads once the drain is over: sessions and events from the public API, orders, sessions and the
// books (D52) from the stores (payment ids are in no API). A stack that has not recovered cannot answer every read:
// the ledger still prints, with what it could not read (`unreadable`).

/** Reads through the gateway with the merchants' keys; every read it could not make is noted in `unreadable`. */
export class LedgerReader {
  readonly unreadable: string[] = [];
  /** Each read retries for 30 s; once one has failed that way the stack is not answering, and the rest try once. */
  private readDeadlineMs = 30_000;

  constructor(
    private readonly api: RecordingClient,
    private readonly merchants: readonly Merchant[],
  ) {}

  keyOf(merchant: number, mode: 'test' | 'live'): string {
    const { testKey, liveKey } = this.merchants[merchant] as Merchant;
    return mode === 'test' ? testKey : liveKey;
  }

  async getJson<T>(path: string, key: string): Promise<T> {
    const reply = await sendWithRetries(() => this.api.send('GET', path, 'ledger', { key }), {
      deadlineMs: this.readDeadlineMs,
    });
    if (reply.outcome !== 200) {
      this.readDeadlineMs = 0;
      throw new Error(`ledger read ${path} → ${reply.outcome}: ${JSON.stringify(reply.body)}`);
    }
    return reply.body as T;
  }

  /** `read`, or undefined with its failure noted. */
  async orNote<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      this.unreadable.push(err instanceof Error ? err.message : String(err));
      return undefined;
    }
  }

  /** Each journey's session, as the API shows it. */
  async sessions(journeys: readonly Journey[]): Promise<Map<string, CheckoutSession>> {
    const sessions = new Map<string, CheckoutSession>();
    const withSessions = journeys.filter((j) => j.sessionId !== undefined);
    await inParallel(withSessions.length, 8, async (i) => {
      const j = withSessions[i] as Journey;
      const read = await this.orNote(() =>
        this.getJson<{ session: CheckoutSession }>(
          `/v0/checkout/sessions/${j.sessionId}`,
          this.keyOf(j.merchant, j.mode),
        ),
      );
      if (read) sessions.set(read.session.id, read.session);
    });
    return sessions;
  }

  /**
   * Every merchant's events in both modes: a session's with its deliveries (D30); orders' and refunds' (D49), and
   * those of test mode with the path of their merchant's endpoint (start.ts).
   */
  async events(): Promise<{
    events: EventWithDeliveries[];
    publicEvents: WebhookEvent[];
    owedToEndpoints: OwedEvent[];
  }> {
    const events: EventWithDeliveries[] = [];
    const publicEvents: WebhookEvent[] = [];
    const owedToEndpoints: OwedEvent[] = [];
    for (let m = 0; m < this.merchants.length; m++) {
      for (const mode of ['test', 'live'] as const) {
        const key = this.keyOf(m, mode);
        const listed: WebhookEvent[] = [];
        await this.orNote(async () => {
          for (let page = 1; page <= 10_000; page++) {
            const body = await this.getJson<{ events: WebhookEvent[]; pagination: { hasMore: boolean } }>(
              `/v0/events?limit=100&page=${page}`,
              key,
            );
            listed.push(...body.events);
            if (!body.pagination.hasMore) break;
          }
        });
        // Orders' and refunds' events have no deliveries to read.
        const ofSessions = listed.filter((e): e is SessionWebhookEvent => 'session' in e);
        const ofOrders = listed.filter((e) => !('session' in e));
        publicEvents.push(...ofOrders);
        if (mode === 'test')
          owedToEndpoints.push(...ofOrders.map((e) => ({ id: e.id, type: e.event, path: `/m${m}` })));
        const read = await inParallel(ofSessions.length, 8, (i) =>
          this.orNote(() =>
            this.getJson<{ event: SessionWebhookEvent; deliveries: Delivery[] }>(
              `/v0/events/${(ofSessions[i] as SessionWebhookEvent).id}`,
              key,
            ),
          ),
        );
        events.push(...read.filter((e): e is EventWithDeliveries => e !== undefined));
      }
    }
    return { events, publicEvents, owedToEndpoints };
  }

  /** D52: a report over the run's window beside the API's balance, per merchant and mode. */
  booksReport(): Promise<BooksInput['reports'] | undefined> {
    const day = 86_400_000;
    const window = {
      createdAfter: new Date(Date.now() - day).toISOString(),
      createdBefore: new Date(Date.now() + day).toISOString(),
    };
    const readers = this.merchants.flatMap((m, i) =>
      (['test', 'live'] as const).map((mode) => ({ merchant: `${m.name} ${mode}`, key: this.keyOf(i, mode) })),
    );
    return this.orNote(() => reportsBesideBalance(this.api, readers, window));
  }
}

/** An order as orders stores it: what the ledger and the mixed-version rows read. */
export interface OrderDoc {
  _id: string;
  status: string;
  paymentStatus: string;
  revision?: number;
  externalId?: string;
  amounts: { paid: number; total: number; refunded?: number };
  payments: { paymentId: string; amount: number }[];
  refunds?: { id: string; amount: number; status: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/** A session as sessions stores it, the fields the ledger reads. */
export interface SessionDoc {
  _id: string;
  orderId: string;
  status: string;
  orderRevision?: number;
  orderJson?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An event as the dispatcher stores it, as far as the ledger reads it. */
export interface EventDoc {
  _id: string;
  createdAt: Date;
  recordedAt?: Date;
}

/** The stored orders, sessions and events, and what the ledger takes from them. */
export async function readStores(db: (name: string) => Db): Promise<{
  orderDocs: OrderDoc[];
  sessionDocs: SessionDoc[];
  orders: StoredOrder[];
  sessionOrderIds: Set<string>;
  storedStateOf: (sessionId: string) => string | undefined;
  /** The dispatcher's stored events: when each was made and recorded. */
  eventDocs: EventDoc[];
  /** Event id → when the dispatcher recorded the event (epoch ms). */
  recordedAt: Map<string, number>;
}> {
  const orderDocs = await db('orders').collection<OrderDoc>('orders').find({}).toArray();
  const orders: StoredOrder[] = orderDocs.map((o) => ({
    id: o._id,
    paid: o.amounts.paid,
    total: o.amounts.total,
    status: o.status,
    paymentStatus: o.paymentStatus,
    ...(o.amounts.refunded !== undefined && { refunded: o.amounts.refunded }),
    refunds: (o.refunds ?? []).map((r) => ({ id: r.id, amount: r.amount, status: r.status })),
    payments: o.payments.map((p) => ({ paymentId: p.paymentId, amount: p.amount })),
    ...(o.externalId !== undefined && { externalId: o.externalId }),
  }));
  const sessionDocs = await db('sessions')
    .collection<SessionDoc>('sessions')
    .find({}, { projection: { orderId: 1, status: 1, orderRevision: 1, orderJson: 1, createdAt: 1, updatedAt: 1 } })
    .toArray();
  const orderStates = new Map(orderDocs.map((o) => [o._id, o]));
  const storedStateOf = (sessionId: string): string | undefined => {
    const doc = sessionDocs.find((d) => d._id === sessionId);
    if (!doc) return undefined;
    const copy = doc.orderJson === undefined ? 'none' : (JSON.parse(doc.orderJson) as { status?: string }).status;
    const order = orderStates.get(doc.orderId);
    return `stored ${doc.status}, its order copy ${copy} at revision ${doc.orderRevision ?? 'none'}; the order is ${order?.status ?? 'missing'} at revision ${order?.revision ?? 'none'}`;
  };
  const eventDocs = await db('webhooks')
    .collection<EventDoc>('events')
    .find({}, { projection: { createdAt: 1, recordedAt: 1 } })
    .toArray();
  return {
    orderDocs,
    sessionDocs,
    orders,
    sessionOrderIds: new Set(sessionDocs.map((d) => d.orderId)),
    storedStateOf,
    eventDocs,
    recordedAt: new Map(eventDocs.flatMap((e) => (e.recordedAt ? [[e._id, e.recordedAt.getTime()] as const] : []))),
  };
}

/** D52: the lines and balances as orders stores them, and the reports beside the API when they run, for the rows. */
export async function readBooks(
  orders: Db,
  reports?: () => Promise<BooksInput['reports'] | undefined>,
): Promise<BooksInput> {
  const reported = await reports?.();
  const lines = await orders
    .collection<Omit<StoredBalanceLine, 'id'> & { _id: string }>('balance_transactions')
    .find({})
    .toArray();
  const balances = await orders.collection<StoredBalance>('balances').find({}).toArray();
  return {
    lines: lines.map(({ _id, organizationId, mode, type, orderId, sourceId, amount, currency }) => ({
      id: _id,
      organizationId,
      mode,
      type,
      orderId,
      sourceId,
      amount,
      currency,
    })),
    balances: balances.map(({ organizationId, mode, currency, payments, refunds, count }) => ({
      organizationId,
      mode,
      currency,
      payments,
      refunds,
      count,
    })),
    ...(reported && { reports: reported }),
  };
}
