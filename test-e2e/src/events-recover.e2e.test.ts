import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkout, isCheckoutApiError } from '@checkout/sdk';
import { eventually, startWebhookReceiver, ANSWER, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { uniqueId } from './support/factories';
import { paidSessionWithFailedDelivery } from './support/webhooks';

// D44 through the gateway: deliveries that ended failed are delivered again, once each, with new delivery ids;
// other organizations and the other mode are untouched. Driven with the SDK, as a merchant would.

const DEADLINE = { deadlineMs: 30_000, intervalMs: 200 };
let stack: InProcessStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    webhookRetryDelaysMs: '100,200,400,800',
    extraEnv: {
      gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' },
      dispatcher: { WEBHOOK_MAX_ATTEMPTS: '2' },
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function newMerchant() {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Recover Org'));
  return {
    test: new Checkout(org.testKey, { baseUrl: stack.gatewayUrl }),
    live: new Checkout(org.liveKey, { baseUrl: stack.gatewayUrl }),
    raw: new Api(stack.gatewayUrl, org.testKey),
  };
}

/** A paid session whose webhook to `path` has failed (every attempt used); its event id. */
async function failedDelivery(client: Checkout, path: string): Promise<string> {
  return (await paidSessionWithFailedDelivery(client, receiver, path)).eventId;
}

describe('POST /v0/events/recover', () => {
  it('When deliveries failed since a time, then each is delivered again once with a new delivery id, and a second recovery does nothing (D44)', async () => {
    const since = new Date(Date.now() - 60_000);
    const merchant = await newMerchant();
    const path = `/hooks/${uniqueId('a')}`;
    const eventId = await failedDelivery(merchant.test, path);
    const failedDeliveryId = (await merchant.test.events.retrieve(eventId)).deliveries[0]?.id;
    receiver.answer(path, ANSWER.ok);

    expect(await merchant.test.events.recover({ since })).toEqual({ recovering: 1 });

    const { deliveries } = await eventually(
      async () => {
        const found = await merchant.test.events.retrieve(eventId);
        return found.deliveries.some((d) => d.status === 'succeeded') ? found : undefined;
      },
      { ...DEADLINE, description: 'the recovered delivery to succeed' },
    );
    expect(deliveries).toHaveLength(2);
    const recovered = deliveries.find((d) => d.id !== failedDeliveryId);
    expect(recovered?.status).toBe('succeeded');
    const arrived = receiver.deliveries(path).filter((r) => r.headers['x-service-delivery-id'] === recovered?.id);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]?.headers['x-service-event-id']).toBe(eventId);

    expect(await merchant.test.events.recover({ since })).toEqual({ recovering: 0 });
  });

  it("When another organization or the live key recovers, then this organization's failed test deliveries stay as they are (D44)", async () => {
    const since = new Date(Date.now() - 60_000);
    const owner = await newMerchant();
    const other = await newMerchant();
    const eventId = await failedDelivery(owner.test, `/hooks/${uniqueId('b')}`);
    expect(await other.test.events.recover({ since })).toEqual({ recovering: 0 });
    expect(await owner.live.events.recover({ since })).toEqual({ recovering: 0 });
    expect((await owner.test.events.retrieve(eventId)).deliveries).toHaveLength(1);
  });

  it('When since is missing, malformed or more than 14 days back, then 400 INVALID_REQUEST (D44)', async () => {
    const { test, raw } = await newMerchant();
    expect(await raw.post('/v0/events/recover', {})).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await raw.post('/v0/events/recover', { since: 'yesterday' })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REQUEST' },
    });
    const tooOld = await test.events
      .recover({ since: new Date(Date.now() - 15 * 24 * 3_600_000) })
      .catch((err: unknown) => err);
    expect(isCheckoutApiError(tooOld, 'INVALID_REQUEST')).toBe(true);
    expect(await test.events.recover({ since: new Date(Date.now() - 13 * 24 * 3_600_000) })).toEqual({ recovering: 0 });
  });
});
