import type { Readable } from 'node:stream';
import type {
  BalanceDailyResponse,
  BalanceResponse,
  BalanceTransactionListResponse,
  CheckoutSession,
  CreateReportRequest,
  CreateRefundRequest,
  DeliveryStatsResponse,
  EndpointDeliveriesResponse,
  EventPageResponse,
  EventResponse,
  FailedDeliveriesResponse,
  Order,
  OrderPageResponse,
  OrderPaymentsResponse,
  OrderResponse,
  PaymentsPerHourResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  Refund,
  RefundListResponse,
  ReportResponse,
  Scope,
  SessionListResponse,
  SessionResponse,
  UpdateWebhookEndpointRequest,
  CreateWebhookEndpointRequest,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
} from '@checkout/contracts';
import type { OwnerAnswer } from './owners';
import { copyOrderToSession, type SessionOrderCopies } from './order-writes';
import { sessionHistory, type HistoryEntry } from './dashboard-views';

// D47: what the dashboard reads and does goes through the owners' internal APIs with the session's scope. The
// ports below are those calls (the gateway's clients implement them); the functions combine several into one view.

/** D52: orders' calls the Balance page makes. */
interface DashboardBooks {
  balance(scope: Scope, requestId: string): Promise<BalanceResponse>;
  balanceDaily(scope: Scope, requestId: string, days: number): Promise<BalanceDailyResponse>;
  listBalanceTransactions(
    scope: Scope,
    requestId: string,
    query: Record<string, string | undefined>,
  ): Promise<BalanceTransactionListResponse>;
  /** `formKey` is the Download CSV form's one-time key: the form sent twice runs one report. */
  createReport(scope: Scope, requestId: string, body: CreateReportRequest, formKey: string): Promise<ReportResponse>;
  getReport(scope: Scope, requestId: string, id: string): Promise<ReportResponse>;
  /** The report's CSV as orders streams it (never held whole here). */
  reportFile(scope: Scope, requestId: string, id: string): Promise<Readable>;
}

/** Orders' calls the dashboard makes. */
export interface DashboardOrders extends DashboardBooks {
  listOrders(scope: Scope, requestId: string, query: Record<string, string | undefined>): Promise<OrderPageResponse>;
  getOrder(scope: Scope, requestId: string, id: string): Promise<OrderResponse>;
  orderPayments(scope: Scope, requestId: string, id: string): Promise<OrderPaymentsResponse>;
  orderRefunds(scope: Scope, requestId: string, id: string): Promise<RefundListResponse>;
  paymentsPerHour(scope: Scope, requestId: string): Promise<PaymentsPerHourResponse>;
  /** Orders' whole answer (the refund, the order, its revision); `formKey` makes a form sent twice one refund. */
  createRefund(
    scope: Scope,
    requestId: string,
    id: string,
    body: CreateRefundRequest,
    formKey: string,
  ): Promise<OwnerAnswer>;
}

/** Sessions' calls the dashboard makes, D46's order copy included. */
export interface DashboardSessions extends SessionOrderCopies {
  listSessions(
    scope: Scope,
    requestId: string,
    query: Record<string, string | undefined>,
  ): Promise<SessionListResponse>;
  getSession(scope: Scope, requestId: string, id: string): Promise<SessionResponse>;
}

/** The webhook dispatcher's calls the endpoint pages make (D50). */
export interface EndpointPagesDispatcher {
  listEndpoints(scope: Scope, requestId: string): Promise<WebhookEndpointList>;
  getEndpoint(scope: Scope, requestId: string, id: string): Promise<WebhookEndpointResponse>;
  endpointDeliveries(
    scope: Scope,
    requestId: string,
    id: string,
    page: string | undefined,
  ): Promise<EndpointDeliveriesResponse>;
  createEndpoint(
    scope: Scope,
    requestId: string,
    input: CreateWebhookEndpointRequest,
  ): Promise<WebhookEndpointSecretResponse>;
  updateEndpoint(
    scope: Scope,
    requestId: string,
    id: string,
    patch: UpdateWebhookEndpointRequest,
  ): Promise<WebhookEndpointResponse>;
  rotateEndpointSecret(scope: Scope, requestId: string, id: string): Promise<WebhookEndpointSecretResponse>;
  recover(scope: Scope, requestId: string, since: string, endpointId?: string): Promise<RecoverEventsResponse>;
}

/** The webhook dispatcher's calls the dashboard makes: events, their deliveries, and the endpoint pages'. */
export interface DashboardDispatcher extends EndpointPagesDispatcher {
  listEvents(scope: Scope, requestId: string, query: Record<string, string | undefined>): Promise<EventPageResponse>;
  getEvent(scope: Scope, requestId: string, id: string): Promise<EventResponse>;
  failedDeliveries(scope: Scope, requestId: string): Promise<FailedDeliveriesResponse>;
  deliveryStats(scope: Scope, requestId: string): Promise<DeliveryStatsResponse>;
  redeliver(scope: Scope, requestId: string, id: string): Promise<RedeliverResponse>;
}

export interface DashboardOwners {
  orders: DashboardOrders;
  sessions: DashboardSessions;
  dispatcher: DashboardDispatcher;
}

/** The overview's two charts' data: deliveries per host (the dispatcher) and payments per hour (orders). */
export async function overview(
  owners: Pick<DashboardOwners, 'orders' | 'dispatcher'>,
  scope: Scope,
  requestId: string,
): Promise<{ deliveries: DeliveryStatsResponse; payments: PaymentsPerHourResponse }> {
  const [deliveries, payments] = await Promise.all([
    owners.dispatcher.deliveryStats(scope, requestId),
    owners.orders.paymentsPerHour(scope, requestId),
  ]);
  return { deliveries, payments };
}

/** How many days the Balance page's chart shows. */
export const BALANCE_CHART_DAYS = 30;

/** The Balance page's reads (D52): the totals, the days of the chart, a page of lines, and the report asked about. */
export async function balanceView(
  owners: Pick<DashboardOwners, 'orders'>,
  scope: Scope,
  requestId: string,
  asked: { query: Record<string, string | undefined>; page: string | undefined; reportId?: string | undefined },
) {
  const { orders } = owners;
  const [{ balance }, daily, list, report] = await Promise.all([
    orders.balance(scope, requestId),
    orders.balanceDaily(scope, requestId, BALANCE_CHART_DAYS),
    orders.listBalanceTransactions(scope, requestId, { ...asked.query, page: asked.page, limit: '25' }),
    asked.reportId === undefined ? undefined : orders.getReport(scope, requestId, asked.reportId),
  ]);
  return { balance, days: daily.days, list, report: report?.report };
}

/** D48: what the Refund form offers, paid less the refunds that succeeded or are pending (orders decides it again). */
export function refundableShown(paid: number, refunds: readonly { amount: number; status: string }[]): number {
  return paid - refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
}

export interface OrderView {
  order: Order;
  payments: OrderPaymentsResponse['payments'];
  refunds: Refund[];
  /** What the Refund form offers (D48). */
  refundable: number;
}

/** An order's page: the order, its payments and its refunds, read together. */
export async function orderView(
  owners: Pick<DashboardOwners, 'orders'>,
  scope: Scope,
  requestId: string,
  id: string,
): Promise<OrderView> {
  const [{ order }, { payments }, { refunds }] = await Promise.all([
    owners.orders.getOrder(scope, requestId, id),
    owners.orders.orderPayments(scope, requestId, id),
    owners.orders.orderRefunds(scope, requestId, id),
  ]);
  return { order, payments, refunds, refundable: refundableShown(order.amounts.paid, refunds) };
}

/**
 * D48 from the dashboard: the refund goes through orders' one conditional write, and its order on to the order's
 * checkout session before the page answers (D46), as an API refund's does.
 */
export async function refundOrder(
  owners: Pick<DashboardOwners, 'orders' | 'sessions'>,
  scope: Scope,
  requestId: string,
  id: string,
  refund: { body: CreateRefundRequest; formKey: string },
): Promise<void> {
  const answer = await owners.orders.createRefund(scope, requestId, id, refund.body, refund.formKey);
  await copyOrderToSession(owners.sessions, scope, requestId, answer);
}

/** A checkout session's page: the session and its history, from the session and the events recorded of it. */
export async function sessionView(
  owners: Pick<DashboardOwners, 'sessions' | 'dispatcher'>,
  scope: Scope,
  requestId: string,
  id: string,
): Promise<{ session: CheckoutSession; history: HistoryEntry[] }> {
  const { session } = await owners.sessions.getSession(scope, requestId, id);
  const events = await owners.dispatcher.listEvents(scope, requestId, { sessionId: id, limit: '100' });
  return { session, history: sessionHistory(session, events.events) };
}
