// What tools outside this service use of its insides (`@checkout/orders/testing`): the message fixtures build
// orders' events with its own code, the dashboard bench runs its store and chart. Never imported by what ships.
export { newOrder, type NewOrderInput } from './domain/order';
export { presentOrder } from './domain/order.presenter';
export { OrderCommands } from './domain/orders.use-cases';
export { paymentsChartStart, paymentsPerHour } from './domain/payments-per-hour';
export type { RefundInput } from './domain/refund';
export { OrderEventsProducer } from './messaging/order-events.producer';
export { parseOrderNamed } from './messaging/balance-lines.consumer';
export { ReportEventsProducer } from './messaging/report-events.producer';
export type { ReportDocument } from './store/report.document';
export type { OrderDocument } from './store/order.document';
export { OrdersStore } from './store/orders.store';
export type { ReferenceDataStore } from './store/reference-data.store';
