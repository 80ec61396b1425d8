// What tools outside this service use of its insides (`@checkout/webhook-dispatcher/testing`): the message fixtures
// build and parse its messages, the contract tests run its client of the gateway, the dashboard bench runs its store
// and delivery statistics. Never imported by what ships.
export { GatewaySettingsClient } from './clients/gateway.client';
export { DELIVERY_STATS_HOSTS, DELIVERY_STATS_WINDOW_MS, deliveryStats } from './domain/delivery-stats';
export { parseOrderPublicEvent } from './messaging/order-public-events.consumer';
export { parseReportEvent } from './messaging/report-events.consumer';
export { parseRetryMessage } from './messaging/retry.consumer';
export { parseSessionEvent } from './messaging/session-events.consumer';
export { WebhookPublisher } from './messaging/webhook-messages';
export type { DeliveryDocument } from './store/delivery.document';
export { DeliveriesStore } from './store/deliveries.store';
