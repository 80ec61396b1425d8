import type { Pool } from 'undici';
import { percentile } from './load';

// The hosted page as a customer's browser opens it: GET /checkout/:id through the gateway (passed through to
// sessions, D41) for pending sessions, with a German browser's Accept-Language, so a page that speaks the
// customer's language pays for negotiating it and for its catalog here (D53). It is on the payment path: the
// page is what the customer pays from.

const ACCEPT_LANGUAGE = 'de-DE,de;q=0.9,en;q=0.8';

export interface HostedPageLoad {
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
}

/** `concurrency` browsers opening the pages of `sessionIds` in turn for `durationMs`. */
export async function loadHostedPages(
  pool: Pool,
  sessionIds: readonly string[],
  options: { concurrency: number; durationMs: number },
): Promise<HostedPageLoad> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const browser = async () => {
    while (performance.now() < deadline) {
      const id = sessionIds[next++ % sessionIds.length];
      const sent = performance.now();
      try {
        const response = await pool.request({
          method: 'GET',
          path: `/checkout/${id}`,
          headers: { accept: 'text/html', 'accept-language': ACCEPT_LANGUAGE },
        });
        await response.body.text();
        if (response.statusCode === 200) latencies.push(performance.now() - sent);
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, browser));
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: (performance.now() - started) / 1000,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

/** A titled table, as `npm run bench -- compare` reads them. */
export function hostedPageTable(load: HostedPageLoad, concurrency: number): string {
  const cells = [
    ['page', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors'],
    [
      'GET /checkout/:id (pending)',
      (load.requests / load.seconds).toFixed(0),
      load.p50.toFixed(1),
      load.p95.toFixed(1),
      load.p99.toFixed(1),
      String(load.errors),
    ],
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [
    `hosted page, through the gateway, Accept-Language ${ACCEPT_LANGUAGE}, concurrency ${concurrency}:`,
    line(cells[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    line(cells[1]!),
  ].join('\n');
}
