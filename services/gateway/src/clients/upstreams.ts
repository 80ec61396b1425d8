import { InternalClient } from '@checkout/http';
import { OrdersClient } from './orders.client';
import { SessionsClient } from './sessions.client';
import { WebhookDispatcherClient } from './webhook-dispatcher.client';

/**
 * The services the gateway forwards to and reads from, keyed as the public route table names them (public-routes.ts).
 */
export interface Upstreams {
  orders: OrdersClient;
  sessions: SessionsClient;
  dispatcher: WebhookDispatcherClient;
}

export function createUpstreams(settings: {
  internalToken: string;
  timeoutMs: number;
  ordersUrl: string;
  sessionsUrl: string;
  dispatcherUrl: string;
}): Upstreams {
  const http = (service: string, baseUrl: string) =>
    new InternalClient({
      service,
      baseUrl,
      internalToken: settings.internalToken,
      timeoutMs: settings.timeoutMs,
      connections: 128,
    });
  return {
    orders: new OrdersClient(http('orders', settings.ordersUrl)),
    sessions: new SessionsClient(http('sessions', settings.sessionsUrl)),
    dispatcher: new WebhookDispatcherClient(http('webhook-dispatcher', settings.dispatcherUrl)),
  };
}

export async function closeUpstreams(upstreams: Upstreams): Promise<void> {
  await Promise.all(
    Object.values(upstreams).map((client: { close(): Promise<void> }) => client.close().catch(() => {})),
  );
}
