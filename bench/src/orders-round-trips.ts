// The orders bench's count of database commands and Kafka sends per public orders call (round-trips.ts), services in
// this process.
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { measureRoundTrips, startCountedStack, type CountedStack, type RoundTripRow } from './round-trips';
import { ORDER, paidOrders } from './orders-writes';

/** Database commands and Kafka sends per public orders call, services in this process, counted. */
export async function roundTrips(engines: Engines): Promise<RoundTripRow[]> {
  // Sessions too: a refund's order is a session's order (the only orders sessions pays), and the gateway brings the
  // session's copy up to date (D46) before it answers.
  const stack = await startCountedStack(engines, ['orders', 'sessions', 'gateway']);
  try {
    const org = await stack.admin().createOrganizationWithKeys('Bench Round Trips Org');
    const pool = new Pool(stack.urls.gateway ?? '', { connections: 1 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` };
    const post = async (body: string, extra: Record<string, string> = {}) => {
      const response = await pool.request({
        method: 'POST',
        path: '/v0/orders',
        headers: { ...headers, ...extra },
        body,
      });
      const json = (await response.body.json()) as { order?: { id?: string } };
      if (response.statusCode !== 201) throw new Error(`POST /v0/orders answered ${response.statusCode}`);
      return json.order?.id ?? '';
    };
    const withCustomer = (email: string) => JSON.stringify({ ...(JSON.parse(ORDER) as object), customer: { email } });
    const id = await post(ORDER);
    const tag = Date.now().toString(36);
    const rows = [
      await measureRoundTrips(
        stack,
        'GET /v0/orders/:id',
        async () => {
          const response = await pool.request({ method: 'GET', path: `/v0/orders/${id}`, headers });
          await response.body.dump();
        },
        { budget: { commands: 1, source: '≤ 1' }, before: '2 (rate-limit slot insert + find)' },
      ),
      await measureRoundTrips(stack, 'POST /v0/orders', () => post(ORDER), {
        budget: { commands: 2, source: '≤ 2 incl. relay' },
        before: '2 (slot insert + insert)',
      }),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, new customer',
        (i) => post(withCustomer(`bench-${tag}-${i}@example.com`)),
        // D49: every create writes order.created and the relay marks it sent, the "incl. relay" of the plain budget.
        { budget: { commands: 4, source: '≤ 2 incl. relay + 2 (find, insert)' }, before: '4' },
      ),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, known customer',
        () => post(withCustomer(`bench-${tag}-known@example.com`)),
        { budget: { commands: 3, source: '≤ 2 incl. relay + 1 (find)' }, before: '3' },
      ),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, Idempotency-Key (D42)',
        (i) => post(ORDER, { 'idempotency-key': `bench-${tag}-${i}` }),
        { before: '4' },
      ),
    ];
    rows.push(await measureRefundRoundTrips(stack, pool, headers, org.testKey));
    await pool.close();
    return rows;
  } finally {
    await stack.stop();
  }
}

/** D48: a refund of a paid order (paid as sessions pays, through orders' internal API), one order per run. */
async function measureRefundRoundTrips(
  stack: CountedStack,
  pool: Pool,
  headers: Record<string, string>,
  key: string,
): Promise<RoundTripRow> {
  const paid = await paidOrders({ gatewayUrl: stack.urls.gateway ?? '', key, count: 21 });
  return measureRoundTrips(
    stack,
    'POST /v0/orders/:id/refunds (D48)',
    async (i) => {
      const response = await pool.request({
        method: 'POST',
        path: `/v0/orders/${paid[i + 1] ?? ''}/refunds`,
        headers,
        body: JSON.stringify({ amount: 100 }),
      });
      await response.body.dump();
      if (response.statusCode !== 201) throw new Error(`POST refunds answered ${response.statusCode}`);
    },
    {
      budget: {
        commands: 3,
        service: 'orders',
        source: "orders as a cancel: read, replace, mark sent (sessions: the session's copy, D46, and its consumer)",
      },
    },
  );
}
