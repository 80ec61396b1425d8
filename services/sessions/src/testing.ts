// What tools outside this service use of its insides (`@checkout/sessions/testing`): the message fixtures build its
// events and parse orders' with its consumer; the contract tests run its client of orders. Never imported by what
// ships.
export { OrdersClient } from './clients/orders.client';
export { sessionEventMessage } from './domain/session-event';
export { parseOrderEvent } from './messaging/order-events.consumer';
export type { SessionDocument } from './store/session.document';
