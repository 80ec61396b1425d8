// The abuser's process (bench/src/abuser.ts): one test key creating and PATCHing orders with the largest bodies the
// API takes, and the receiver its 16 endpoints point at. Driven over IPC by the bench.
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { ITEMS_MAX, LINE_NAME_MAX, METADATA_KEY_MAX, METADATA_MAX_KEYS, METADATA_VALUE_MAX } from '@checkout/contracts';
import { startWebhookReceiver } from '@checkout/testing';
import type { AbuserAnswer, AbuserRequest, Tally } from './abuser';
import { paced } from './load';

/** The largest order the API takes: ITEMS_MAX items of the longest names, the most metadata of the longest values. */
function largestOrder(seed: string): Record<string, unknown> {
  const text = (n: number, fill: string) => `${seed}${fill.repeat(n)}`.slice(0, n);
  return {
    items: Array.from({ length: ITEMS_MAX }, (_, i) => ({
      name: text(LINE_NAME_MAX, `item ${i} `),
      quantity: 1,
      unitPrice: 100 + i,
    })),
    metadata: largestMetadata(seed),
  };
}

function largestMetadata(seed: string): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: METADATA_MAX_KEYS }, (_, i) => [
      `k${i}`.padEnd(METADATA_KEY_MAX, 'k'),
      `${seed}`.padEnd(METADATA_VALUE_MAX, 'v'),
    ]),
  );
}

/** The orders the abuser created, which its PATCHes pick from, run after run. */
const orders: string[] = [];

/**
 * At `rate` requests a second for `ms`, an order created, then PATCHed with new metadata, in turn, with the test key;
 * every answer counted by status and code.
 */
async function abuse(options: { gatewayUrl: string; key: string; rate: number; ms: number }): Promise<Tally> {
  const tally: Tally = new Map();
  const pool = new Pool(options.gatewayUrl, { connections: 32 });
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  const send = async (i: number) => {
    const patch = i % 2 === 1 && orders.length > 0;
    const seed = randomBytes(6).toString('hex');
    const response = await pool.request(
      patch
        ? {
            method: 'PATCH',
            path: `/v0/orders/${orders[Math.floor(Math.random() * orders.length)]}`,
            headers,
            body: JSON.stringify({ metadata: largestMetadata(seed) }),
          }
        : { method: 'POST', path: '/v0/orders', headers, body: JSON.stringify(largestOrder(seed)) },
    );
    const answer = (await response.body.json().catch(() => ({}))) as { code?: string; order?: { id: string } };
    if (answer.order && !patch) orders.push(answer.order.id);
    const label = `${patch ? 'PATCH' : 'POST'} ${response.statusCode}${answer.code ? ` ${answer.code}` : ''}`;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  };
  await paced(options.rate, options.ms, send);
  await pool.close();
  return tally;
}

const receiver = await startWebhookReceiver();
const reply = (message: AbuserAnswer) => process.send?.(message);
// The bench gone (a failure, ^C), its channel closes: the receiver must not keep this process alive.
process.once('disconnect', () => process.exit(0));
process.on('message', (request: AbuserRequest) => {
  void (async () => {
    if (request.kind === 'run') reply({ kind: 'ran', tally: [...(await abuse(request))] });
    else if (request.kind === 'delivered') reply({ kind: 'delivered', count: receiver.deliveries().length });
    else {
      await receiver.close();
      reply({ kind: 'stopped' });
      process.disconnect();
    }
  })();
});
reply({ kind: 'ready', victimOrigin: new URL(receiver.url()).origin });
