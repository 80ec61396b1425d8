import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually, metricValue } from '@checkout/testing';
import { TenantUsageResponse, newId, type Mode } from '@checkout/contracts';
import { buildSessionEvent, createEndpoint, internalCall, sessionEventsTopic, useDispatcherFixture } from './support';

// The daily budgets' counts (docs/webhooks.md, "Budgets"): what the record's inserts made, per organization, mode and
// UTC day, one upsert per tenant per group commit; a replayed message counts nothing. The gateway reads them on
// GET /internal/usage, with the mode's limits; the sweepers count the tenants near a budget for the alert.

const EVENTS_PER_DAY = 5;
const fixture = useDispatcherFixture('usage', {
  BUDGET_TEST_EVENTS_PER_DAY: String(EVENTS_PER_DAY),
  BUDGET_GAUGE_INTERVAL_MS: '200',
});
const org = `org_usage_${randomBytes(3).toString('hex')}`;
const TEST = { organizationId: org, mode: 'test' as Mode };
const LIVE = { organizationId: org, mode: 'live' as Mode };

async function usageOf(scope: { organizationId: string; mode: Mode }): Promise<TenantUsageResponse> {
  const { status, body } = await internalCall(fixture.dispatcher, 'GET', '/internal/usage', scope);
  expect(status).toBe(200);
  return TenantUsageResponse.parse(body);
}

describe("An organization and mode's usage of its daily budgets", () => {
  it('When events and their deliveries are recorded, then each is counted once, with its bytes, in its own mode; replays count nothing', async () => {
    const { dispatcher, producer, receiver } = fixture;
    await createEndpoint(dispatcher, TEST, { url: receiver.url('/endpoint'), enabledEvents: ['*'] });
    // One session for all of them: one partition, so the last event is recorded after the replays before it.
    const sessionId = newId('cs', 'test');
    const events = Array.from({ length: 3 }, () =>
      buildSessionEvent({ ...TEST, sessionId, callbackUrl: receiver.url('/callback') }),
    );
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), events);
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), events);
    const last = buildSessionEvent({ ...TEST, sessionId, callbackUrl: null });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [last]);
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [
      buildSessionEvent({ ...LIVE, callbackUrl: null }),
    ]);

    // 4 events; each of the first 3 has a delivery to its callback URL and one to the endpoint, the last one only
    // the endpoint's: 7 deliveries.
    const usage = await eventually(
      async () => {
        const read = await usageOf(TEST);
        return read.budgets.events.used === 4 && read.budgets.deliveries.used === 7 ? read : undefined;
      },
      { deadlineMs: 20_000, description: 'the 4 events and 7 deliveries counted' },
    );
    const bodies = [...events, last].reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(usage.budgets.bytes.used).toBeGreaterThan(bodies);
    expect(usage.budgets.events.limit).toBe(EVENTS_PER_DAY);
    const now = new Date();
    expect(usage.day).toBe(now.toISOString().slice(0, 10));
    expect(usage.resetsAt).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
    );
    expect((await usageOf(LIVE)).budgets.events.used).toBe(1);
    expect((await usageOf({ organizationId: `${org}_other`, mode: 'test' })).budgets.events.used).toBe(0);

    // 4 of 5 events is 80 %: the gauge counts this organization, without naming it.
    await eventually(
      async () =>
        (await metricValue(dispatcher.url, 'webhook_tenants_near_budget', { mode: 'test', budget: 'events' })) === 1,
      { deadlineMs: 10_000, description: 'one test-mode organization near its events budget' },
    );
    expect(await metricValue(dispatcher.url, 'webhook_tenants_near_budget', { mode: 'live', budget: 'events' })).toBe(
      0,
    );
  });
});
