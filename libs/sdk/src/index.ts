import { HttpClient, type CheckoutOptions } from './http';
import { BalanceResource, BalanceTransactions } from './resources/balance';
import { CheckoutSessions, TestHelpers } from './resources/checkout-sessions';
import { CheckoutSettings } from './resources/checkout-settings';
import { Dashboard } from './resources/dashboard';
import { Events } from './resources/events';
import { Orders } from './resources/orders';
import { Refunds } from './resources/refunds';
import { Reports } from './resources/reports';
import { EventTypes, WebhookEndpoints } from './resources/webhook-endpoints';
import { webhooks, type Webhooks } from './webhooks';

/**
 * The Orders and Hosted Checkout API client:
 * `const checkout = new Checkout(process.env.CHECKOUT_KEY, { baseUrl })`.
 */
export class Checkout {
  readonly orders: Orders;
  /** D48: `create(orderId, {amount?, reason?, metadata?})`, `list(orderId)`, `retrieve(id)`. */
  readonly refunds: Refunds;
  /** D52: `retrieve()`: payments, refunds, net and the count of lines, over this key's organization and mode. */
  readonly balance: BalanceResource;
  /** D52: one line per money movement: `list(filters)`, `retrieve(id)`. */
  readonly balanceTransactions: BalanceTransactions;
  /** D52: CSV reports: `create`, `retrieve`, `downloadFile`, `streamFile`. */
  readonly reports: Reports;
  readonly checkoutSessions: CheckoutSessions;
  /** The hosted page's brand (display name, colour, logo) and the default locale of new sessions. */
  readonly checkoutSettings: CheckoutSettings;
  readonly events: Events;
  /** D49: the event types, their descriptions and the JSON Schemas of their bodies. */
  readonly eventTypes: EventTypes;
  /** D50: the endpoints that receive your events. */
  readonly webhookEndpoints: WebhookEndpoints;
  /** D47: login links to the merchant dashboard. */
  readonly dashboard: Dashboard;
  /** sk_test keys only (D29). */
  readonly testHelpers: TestHelpers;
  readonly webhooks: Webhooks = webhooks;

  constructor(apiKey: string, options: CheckoutOptions = {}) {
    const http = new HttpClient(apiKey, options);
    this.orders = new Orders(http);
    this.refunds = new Refunds(http);
    this.balance = new BalanceResource(http);
    this.balanceTransactions = new BalanceTransactions(http);
    this.reports = new Reports(http);
    this.checkoutSessions = new CheckoutSessions(http);
    this.checkoutSettings = new CheckoutSettings(http);
    this.events = new Events(http);
    this.eventTypes = new EventTypes(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.dashboard = new Dashboard(http);
    this.testHelpers = new TestHelpers(http);
  }
}

export type { CheckoutOptions, RequestOptions } from './http';
export { ListResult } from './pagination';
export {
  CheckoutApiError,
  CheckoutConnectionError,
  CheckoutError,
  WebhookVerificationError,
  isCheckoutApiError,
  type ApiErrorCode,
} from './errors';
export { webhooks, type HeadersLike, type Webhooks } from './webhooks';
export type * from './types';
