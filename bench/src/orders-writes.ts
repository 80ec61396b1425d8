// The orders bench's order writes beside each other (the PATCH of an open order and D48's refund of a paid one), and
// the paid orders a refund needs, made as customers pay them.
import { Pool } from 'undici';
import { mergeLoads, runLoad, type LoadResult } from './load';

/** The order every scenario creates (a checkout session of the same items, for paid orders). */
export const ORDER = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
  taxes: [{ type: 'additive', amount: 90 }],
});

/**
 * `count` orders paid in full as merchants' customers pay them: a checkout session created through the gateway and
 * paid with the test helper (sessions makes the order and pays it; orders takes sessions' payments only on its
 * sessions' orders). What a refund needs, made outside the measured windows; the refund then brings the session's
 * copy up to date too (D46), as every real refund does.
 */
export async function paidOrders(options: { gatewayUrl: string; key: string; count: number }): Promise<string[]> {
  const pool = new Pool(options.gatewayUrl, { connections: 8 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${options.key}` };
  const ids: string[] = [];
  const make = async () => {
    const created = await pool.request({ method: 'POST', path: '/v0/checkout/sessions', headers, body: ORDER });
    const body = (await created.body.json()) as { session?: { id?: string; order?: { id?: string } } };
    const sessionId = body.session?.id;
    const orderId = body.session?.order?.id;
    if (created.statusCode !== 201 || !sessionId || !orderId)
      throw new Error(`POST /v0/checkout/sessions answered ${created.statusCode}`);
    const paid = await pool.request({
      method: 'POST',
      path: `/v0/test_helpers/checkout/sessions/${sessionId}/pay`,
      headers,
      body: '{}',
    });
    await paid.body.dump();
    if (paid.statusCode !== 200) throw new Error(`paying ${sessionId} answered ${paid.statusCode}`);
    ids.push(orderId);
  };
  try {
    for (let i = 0; i < options.count; i += 8)
      await Promise.all(Array.from({ length: Math.min(8, options.count - i) }, make));
  } finally {
    await pool.close();
  }
  return ids;
}

/**
 * D48's cost beside the order PATCH of the same run: `PATCH /v0/orders/:id` (a metadata edit of an open order) and
 * `POST /v0/orders/:id/refunds` (1 cent of a paid order) at the bench's concurrency, in interleaved slices. Both
 * are one conditional write of the order with its events, published before the answer. The refunds go round 500
 * paid orders, so concurrent refunds of one order (a lost race and a re-read) stay rare, as between merchants.
 */
export async function loadWrites(input: {
  gatewayUrl: string;
  key: string;
  options: { concurrency: number; durationMs: number; rounds: number };
}): Promise<{ patch: LoadResult; refund: LoadResult }> {
  const { options } = input;
  const pool = new Pool(input.gatewayUrl, { connections: options.concurrency, pipelining: 1 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${input.key}` };
  const create = async () => {
    const response = await pool.request({ method: 'POST', path: '/v0/orders', headers, body: ORDER });
    const body = (await response.body.json()) as { order?: { id?: string } };
    if (response.statusCode !== 201 || !body.order?.id)
      throw new Error(`POST /v0/orders answered ${response.statusCode}`);
    return body.order.id;
  };
  try {
    const open = await Promise.all(Array.from({ length: 200 }, create));
    const paid = await paidOrders({ gatewayUrl: input.gatewayUrl, key: input.key, count: 500 });
    const senders = {
      patch: async (n: number) => {
        const response = await pool.request({
          method: 'PATCH',
          path: `/v0/orders/${open[n % open.length] ?? ''}`,
          headers,
          body: JSON.stringify({ metadata: { n: String(n) } }),
        });
        await response.body.dump();
        return response.statusCode === 200;
      },
      refund: async (n: number) => {
        const response = await pool.request({
          method: 'POST',
          path: `/v0/orders/${paid[n % paid.length] ?? ''}/refunds`,
          headers,
          body: '{"amount":1}',
        });
        await response.body.dump();
        return response.statusCode === 201;
      },
    };
    const slices: Record<keyof typeof senders, LoadResult[]> = { patch: [], refund: [] };
    for (let round = 0; round < options.rounds; round++) {
      for (const name of ['patch', 'refund'] as const) {
        slices[name].push(
          await runLoad(
            name,
            {
              concurrency: options.concurrency,
              durationMs: options.durationMs / options.rounds,
              warmupMs: round === 0 ? 1_000 : 200,
            },
            senders[name],
          ),
        );
      }
    }
    return {
      patch: mergeLoads(`gateway+orders PATCH /v0/orders/:id`, slices.patch),
      refund: mergeLoads(`gateway+orders POST /v0/orders/:id/refunds`, slices.refund),
    };
  } finally {
    await pool.close();
  }
}
