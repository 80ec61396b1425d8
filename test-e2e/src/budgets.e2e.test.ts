import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';

// The daily budgets of what every merchant shares (docs/webhooks.md, "Budgets"): one organization's test mode,
// set tiny here, is refused its writes that record events with 429 QUOTA_EXCEEDED once its events are counted; the
// same organization's live mode and another organization are not, and a payment made past the budget is still
// recorded and delivered: only the merchant's own API writes are refused, never what the platform records.

const EVENTS_PER_DAY = 3;
let stack: InProcessStack;

beforeAll(async () => {
  stack = await startStack({
    extraEnv: { dispatcher: { BUDGET_TEST_EVENTS_PER_DAY: String(EVENTS_PER_DAY) } },
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function merchant(label: string): Promise<{ test: Api; live: Api }> {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId(label));
  return { test: new Api(stack.gatewayUrl, org.testKey), live: new Api(stack.gatewayUrl, org.liveKey) };
}

/** The next UTC midnight after `at`. */
const nextMidnight = (at: Date) => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);

describe('Daily budgets per organization and mode', () => {
  it(`When a test key's organization has recorded ${EVENTS_PER_DAY} events today, then its writes are 429 QUOTA_EXCEEDED until midnight UTC, its live mode and other organizations go on, and a payment past the budget is still recorded`, async () => {
    const heavy = await merchant('over-budget');
    const other = await merchant('within-budget');
    // A session made while within the budget (its order's order.created counts), paid once the budget is used up.
    const session = await heavy.test.post('/v0/checkout/sessions', buildSessionInput());
    expect(session.status, JSON.stringify(session.body)).toBe(201);

    // Each order is one order.created event; the gateway sees the count once the dispatcher has recorded it (and its
    // ~1 s cache has passed), so a few more may pass meanwhile: the overshoot the docs bound.
    let refused: Awaited<ReturnType<Api['post']>> | undefined;
    let created = 1;
    await eventually(
      async () => {
        const answer = await heavy.test.post('/v0/orders', buildOrderInput());
        if (answer.status === 201) created += 1;
        else refused = answer;
        return refused !== undefined;
      },
      { deadlineMs: 30_000, intervalMs: 100, description: 'a create past the budget refused' },
    );
    const now = new Date();
    expect(created).toBeGreaterThanOrEqual(EVENTS_PER_DAY);
    expect(refused?.status, JSON.stringify(refused?.body)).toBe(429);
    expect(refused?.body).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      quota: { budget: 'events', limit: EVENTS_PER_DAY, resetsAt: new Date(nextMidnight(now)).toISOString() },
    });
    const retryAfter = Number(refused?.headers['retry-after']);
    const secondsToMidnight = (nextMidnight(now) - now.getTime()) / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.floor(secondsToMidnight) - 5));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(secondsToMidnight) + 1);

    // Every write that records events is refused, with the same answer; reads are not.
    const order = await heavy.test.get('/v0/orders?limit=1');
    expect(order.status).toBe(200);
    const orderId = order.body.orders[0].id as string;
    expect((await heavy.test.patch(`/v0/orders/${orderId}`, { metadata: { a: 'b' } })).status).toBe(429);
    expect((await heavy.test.post(`/v0/orders/${orderId}/cancel`)).status).toBe(429);
    expect((await heavy.test.post('/v0/checkout/sessions', buildSessionInput())).body.code).toBe('QUOTA_EXCEEDED');

    // The same organization's live mode and another organization's test mode have budgets of their own.
    expect((await heavy.live.post('/v0/orders', buildOrderInput())).status).toBe(201);
    expect((await other.test.post('/v0/orders', buildOrderInput())).status).toBe(201);

    // A payment past the budget: applied, its events recorded (the test helper stands in for the customer).
    const paid = await heavy.test.post(`/v0/test_helpers/checkout/sessions/${session.body.session.id}/pay`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.session.status).toBe('completed');
    await eventually(
      async () => {
        const events = await heavy.test.get(`/v0/events?sessionId=${session.body.session.id}`);
        return events.body.events?.some((e: { event: string }) => e.event === 'checkout.session.completed') === true;
      },
      { deadlineMs: 20_000, description: 'the completed session recorded past the budget' },
    );
    await eventually(
      async () => {
        const events = await heavy.test.get('/v0/events?type=order.paid');
        return events.body.events?.length === 1;
      },
      { deadlineMs: 20_000, description: "the order's order.paid recorded past the budget" },
    );
  });
});
