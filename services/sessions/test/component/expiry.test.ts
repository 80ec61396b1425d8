import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, metricValue } from '@checkout/testing';
import { SessionEventV1 } from '@checkout/contracts';
import {
  collectSessionEvents,
  newTenant,
  startStack,
  stopAll,
  sweepsCompleted,
  type SessionEvents,
  type Stack,
} from './harness';

let stack: Stack;
let events: SessionEvents;
let sweeperUrls: string[];
beforeAll(async () => {
  // A second replica runs a sweeper too: every test here runs with two sweepers (flow 4).
  stack = await startStack('expiry');
  const replica = await stack.startReplica({ API_ENABLED: 'false', CONSUMERS_ENABLED: 'false' });
  sweeperUrls = [stack.sessionsUrl, replica.url];
  events = await collectSessionEvents(stack);
});

/** Resolves once each of the two sweepers has completed `rounds` more sweeps than it had when called. */
async function moreSweeps(rounds: number): Promise<void> {
  const before = await Promise.all(sweeperUrls.map(sweepsCompleted));
  await eventually(
    async () => (await Promise.all(sweeperUrls.map(sweepsCompleted))).every((n, i) => n >= (before[i] ?? 0) + rounds),
    {
      deadlineMs: 15_000,
      description: `${rounds} more sweeps by each sweeper`,
    },
  );
}
/** Sessions the two sweepers say they expired (sessions_expired_by_sweep_total, summed). */
async function expiredBySweeps(): Promise<number> {
  const counts = await Promise.all(sweeperUrls.map((url) => metricValue(url, 'sessions_expired_by_sweep_total')));
  return counts.reduce((sum, n) => sum + n, 0);
}

afterAll(() => stopAll(events, stack));

describe('POST /internal/test-helpers/sessions/:id/expire (D29)', () => {
  it('When expired by the helper, then expired now with one checkout.session.expired event; payment refused; a second expire fails', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const res = await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/expire`, tenant);
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({
      status: 'expired',
      active: false,
      order: { status: 'open', paymentStatus: 'unpaid' },
    });
    expect(new Date(res.body.session.expiresAt).getTime()).toBeLessThanOrEqual(stack.clock.now().getTime());
    const [event] = await eventually(() => (events.of(session.id).length ? events.of(session.id) : undefined));
    const envelope = SessionEventV1.parse(event!.value);
    expect(envelope.type).toBe('checkout.session.expired');
    expect(envelope.body.session.status).toBe('expired');
    const pay = await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {});
    expect(pay.body.code).toBe('SESSION_NOT_PAYABLE');
    const again = await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/expire`, tenant);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(events.of(session.id)).toHaveLength(1);
  });
});

describe('exact expiry and the sweeper (D21, flow 4)', () => {
  it('When the clock reaches expiresAt, then reads show expired at once, payment is refused, and two sweepers fire exactly one expired event within 10 s', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant, { expiresInMinutes: 15 });
    const expiresAt = new Date(session.expiresAt).getTime();
    // Move the sessions clock to 1.5 s before expiresAt.
    stack.clock.advance(expiresAt - 1_500 - stack.clock.now().getTime());
    expect((await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session.status).toBe('pending');
    const seen = await eventually(
      async () => {
        const read = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
        // Exactness: never pending once the clock has reached expiresAt.
        if (stack.clock.now().getTime() >= expiresAt + 50) expect(read.status).toBe('expired');
        return read.status === 'expired' ? read : undefined;
      },
      { deadlineMs: 10_000, description: 'expired read' },
    );
    expect(seen.active).toBe(false);
    expect((await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {})).body.code).toBe(
      'SESSION_NOT_PAYABLE',
    );
    await eventually(() => events.of(session.id).length >= 1, {
      deadlineMs: 10_000,
      description: 'expired event from a sweeper',
    });
    // Both sweepers have swept again since; still exactly one event.
    await moreSweeps(2);
    expect(events.of(session.id)).toHaveLength(1);
    expect(SessionEventV1.parse(events.of(session.id)[0]!.value).type).toBe('checkout.session.expired');
  });

  it('When many sessions come due at once, then two sweepers still fire exactly one event per session, and their counts of expired sessions add up to the sessions', async () => {
    const tenant = newTenant();
    const sessions = await Promise.all(
      Array.from({ length: 8 }, () => stack.createSession(tenant, { expiresInMinutes: 15 })),
    );
    const expiredBefore = await expiredBySweeps();
    const latest = Math.max(...sessions.map((s) => new Date(s.expiresAt).getTime()));
    stack.clock.advance(latest - stack.clock.now().getTime() + 10);
    await eventually(() => sessions.every((s) => events.of(s.id).length >= 1), {
      deadlineMs: 10_000,
      description: 'expired events',
    });
    await moreSweeps(2);
    for (const s of sessions) expect(events.of(s.id), s.id).toHaveLength(1);
    // Counted by the sweeper that expired each: the loser of a race may store a newer order copy afterwards (orders'
    // answer to its own close-payments), which is no second expiry.
    expect((await expiredBySweeps()) - expiredBefore).toBe(sessions.length);
  });

  it('When the order is cancelled, then the session is cancelled, fires nothing, and the sweeper leaves it (D25)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant, { expiresInMinutes: 15 });
    // Due at the same time and left pending: its expired event proves a sweep ran past the cancelled one.
    const sentinel = await stack.createSession(tenant, { expiresInMinutes: 15 });
    const cancel = await stack.orders('POST', `/internal/orders/${session.order.id}/cancel`, tenant);
    expect(cancel.status).toBe(200);
    // Sessions learns of the cancel from orders' order.cancelled event (D25), a moment after orders answered.
    await eventually(
      async () =>
        (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session.status === 'cancelled',
      {
        deadlineMs: 10_000,
        description: 'the session cancelled with its order',
      },
    );
    stack.clock.advance(16 * 60_000);
    await eventually(() => events.of(sentinel.id).length >= 1, {
      deadlineMs: 10_000,
      description: 'a sweep expiring the sentinel',
    });
    expect((await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session.status).toBe('cancelled');
    expect(events.of(session.id)).toHaveLength(0);
  });
});
