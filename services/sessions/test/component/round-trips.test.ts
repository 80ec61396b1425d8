import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandCounter } from '@checkout/mongo/testing';
import { newTenant, startStack, type Stack } from './harness';

// The database commands of each session operation, in sessions and in orders, counted
// with the driver's command monitoring (deterministic, so asserted exactly). The gateway adds none after
// warm-up (D43: authentication and the rate limit are in memory). A change that adds a round trip has to
// change this file and say why.

const QUIET = '3600000'; // background sweeps (outbox, expiry) run once at start, then stay out of the windows
// Sessions' consumers are off too: orders' event of a payment reaches sessions while the payment is still being
// answered, and what the consumer reads then is the event's cost, not the request's.
const counters = { orders: new CommandCounter(), sessions: new CommandCounter() };
let stack: Stack;
const tenant = newTenant();

/** The commands `fn` cost in each service. */
async function measure<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; sessions: Record<string, number>; orders: Record<string, number>; total: number }> {
  let inOrders: Awaited<ReturnType<CommandCounter['during']>> | undefined;
  const inSessions = await counters.sessions.during(async () => {
    inOrders = await counters.orders.during(fn);
    return inOrders.result as T;
  });
  return {
    result: inSessions.result,
    sessions: inSessions.commands,
    orders: inOrders!.commands,
    total: inSessions.total + inOrders!.total,
  };
}

beforeAll(async () => {
  stack = await startStack(
    'trips',
    { OUTBOX_SWEEP_INTERVAL_MS: QUIET, EXPIRY_SWEEP_INTERVAL_MS: QUIET, CONSUMERS_ENABLED: 'false' },
    {
      // Orders' background work is off the measured path too: its ledger (D52: consumer and sweep) and report runs.
      ordersEnv: {
        OUTBOX_SWEEP_INTERVAL_MS: QUIET,
        CONSUMERS_ENABLED: 'false',
        BALANCE_SWEEP_INTERVAL_MS: QUIET,
        REPORT_POLL_INTERVAL_MS: QUIET,
      },
      counters,
    },
  );
  // Warm-up: the first request of each kind may pay for things a running service has already done.
  const warm = await stack.createSession(tenant);
  await stack.api('GET', `/internal/sessions/${warm.id}`, tenant);
  await stack.api('POST', `/internal/test-helpers/sessions/${warm.id}/pay`, tenant, {});
});

afterAll(async () => {
  await stack?.stop();
});

describe('database round trips per session operation (sessions + orders)', () => {
  it('POST /internal/sessions: 3 (orders inserts the order with order.created and its relay marks it sent, D49; sessions inserts the session with its copy of the order); budget ≤ 4', async () => {
    const created = await measure(() =>
      stack.api('POST', '/internal/sessions', tenant, { items: [{ name: 'Tea', quantity: 1, unitPrice: 300 }] }),
    );
    expect(created.result.status).toBe(201);
    expect(created.orders).toEqual({ insert: 1, update: 1 });
    expect(created.sessions).toEqual({ insert: 1 });
    expect(created.total).toBeLessThanOrEqual(4);
  });

  it('GET /internal/sessions/:id: 1 in sessions, 0 in orders (the session presents its copy; no hop)', async () => {
    const session = await stack.createSession(tenant);
    const read = await measure(() => stack.api('GET', `/internal/sessions/${session.id}`, tenant));
    expect(read.result.status).toBe(200);
    expect(read.sessions).toEqual({ find: 1 });
    expect(read.orders).toEqual({});
  });

  it('test-helper pay in full: 6 (session read; orders read + conditional replace with its events, its relay marks them sent: order.paid is published at once; the session completed with its event by one findOneAndUpdate, relay marks it sent); budget ≤ 6', async () => {
    const session = await stack.createSession(tenant);
    const paid = await measure(() =>
      stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {}),
    );
    expect(paid.result.status).toBe(200);
    expect(paid.result.body.session.status).toBe('completed');
    expect(paid.sessions).toEqual({ find: 1, findAndModify: 1, update: 1 });
    expect(paid.orders).toEqual({ find: 1, update: 2 });
    expect(paid.total).toBeLessThanOrEqual(6);
  });

  it('test-helper pay, partial: 5 (no session event: the newer order copy is one findOneAndUpdate; orders publishes order.updated and marks it sent); declined: 2 in sessions (one $inc), 0 in orders', async () => {
    const session = await stack.createSession(tenant);
    const partial = await measure(() =>
      stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {
        method: 'stablecoin',
        amount: 100,
      }),
    );
    expect(partial.result.body.session).toMatchObject({
      status: 'pending',
      order: { paymentStatus: 'partially_paid' },
    });
    expect(partial.sessions).toEqual({ find: 1, findAndModify: 1 });
    expect(partial.orders).toEqual({ find: 1, update: 2 });

    const declined = await measure(() =>
      stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, { outcome: 'declined' }),
    );
    expect(declined.result.body.session.failedAttempts).toBe(1);
    expect(declined.sessions).toEqual({ find: 1, findAndModify: 1 });
    expect(declined.orders).toEqual({});
  });
});
