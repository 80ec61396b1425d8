import type { Checkout } from '@checkout/sdk';
import { ANSWER, eventually, type WebhookReceiver } from '@checkout/testing';
import { buildSessionInput, uniqueId } from './factories';

type SessionInput = Parameters<Checkout['checkoutSessions']['create']>[0];

/**
 * A paid test session whose webhook goes to `path` on `receiver`, which answers it with a failure; resolves once
 * that delivery (and any to the organization's webhook endpoints, D50) has ended failed (every attempt used), with
 * the session and its event id. For the tests of
 * what a merchant does about failed deliveries: recover (D44), the dashboard's redeliver (D47).
 */
export async function paidSessionWithFailedDelivery(
  client: Checkout,
  receiver: WebhookReceiver,
  path: string,
): Promise<{ session: Awaited<ReturnType<Checkout['checkoutSessions']['create']>>; eventId: string }> {
  receiver.answer(path, ANSWER.error);
  const session = await client.checkoutSessions.create({
    ...buildSessionInput({ externalId: uniqueId('ext') }),
    callbackUrl: receiver.url(path),
  } as SessionInput);
  await client.testHelpers.checkoutSessions.pay(session.id);
  const eventId = await eventually(
    async () => {
      const [event] = await client.events.list({ sessionId: session.id }).toArray();
      if (!event) return undefined;
      const { deliveries } = await client.events.retrieve(event.id);
      return deliveries.length > 0 && deliveries.every((d) => d.status === 'failed') ? event.id : undefined;
    },
    { deadlineMs: 30_000, intervalMs: 200, description: 'the delivery to end failed' },
  );
  return { session, eventId };
}
