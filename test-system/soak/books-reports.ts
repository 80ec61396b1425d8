import { eventually, parseCsv } from '@checkout/testing';
import { REPORT_COLUMNS } from '@checkout/contracts';
import { sendWithRetries, type RecordingClient } from './client';
import type { BookTotals } from './ledger-types';

/** One merchant's books, in one mode, as the soak reads them after the drain. */
export interface BooksReader {
  /** `<merchant> <mode>`: what the ledger's examples name. */
  merchant: string;
  key: string;
}

const READ_DEADLINE_MS = 30_000;

/** D52's totals of a balance transactions CSV: payments (Σ positive amounts), refunds (Σ |negative amounts|), lines. */
export function totalsOfCsv(csv: string): BookTotals {
  const [columns = [], ...rows] = parseCsv(csv);
  if (columns.join(',') !== REPORT_COLUMNS.balance_transactions.join(','))
    throw new Error(`unexpected report header: ${columns.join(',') || '(none)'}`);
  const amountAt = columns.indexOf('amount');
  const totals: BookTotals = { payments: 0, refunds: 0, count: 0 };
  for (const row of rows) {
    const amount = Number(row[amountAt]);
    if (!Number.isInteger(amount)) throw new Error(`a report line without an integer amount: ${row.join(',')}`);
    if (amount >= 0) totals.payments += amount;
    else totals.refunds -= amount;
    totals.count += 1;
  }
  return totals;
}

/**
 * For each merchant and mode, a balance transactions report over the run's window, run as a merchant runs one
 * (POST, poll, download), beside what `GET /v0/balance` answers: after the drain every line is counted and recorded
 * before the report's asOf, so the two must agree.
 */
export async function reportsBesideBalance(
  client: RecordingClient,
  readers: readonly BooksReader[],
  window: { createdAfter: string; createdBefore: string },
): Promise<Array<{ merchant: string; report: BookTotals; api: BookTotals }>> {
  const read = async (method: 'GET' | 'POST', path: string, key: string, body?: unknown, expected = 200) => {
    // A retried POST is the same report (D42); the key names the merchant, never a part of its API key.
    const idempotencyKey = `soak-books-${(readers.find((r) => r.key === key)?.merchant ?? '').replace(/\W+/g, '-')}`;
    const reply = await sendWithRetries(
      () =>
        client.send(method, path, 'ledger', {
          key,
          ...(body !== undefined && { body, headers: { 'idempotency-key': idempotencyKey } }),
        }),
      { deadlineMs: READ_DEADLINE_MS },
    );
    if (reply.outcome !== expected) throw new Error(`books read ${method} ${path} → ${reply.outcome}`);
    return reply.body;
  };
  const results = [];
  for (const { merchant, key } of readers) {
    const created = (await read('POST', '/v0/reports', key, { type: 'balance_transactions', ...window }, 202)) as {
      report: { id: string };
    };
    const id = created.report.id;
    const status = await eventually(
      async () => {
        const { report } = (await read('GET', `/v0/reports/${id}`, key)) as { report: { status: string } };
        return report.status === 'pending' ? undefined : report.status;
      },
      { deadlineMs: 60_000, intervalMs: 250, description: `${merchant}'s report ${id} to finish` },
    );
    if (status !== 'succeeded') throw new Error(`${merchant}'s report ${id} ${status}`);
    const report = totalsOfCsv(String(await read('GET', `/v0/reports/${id}/file`, key)));
    const { balance } = (await read('GET', '/v0/balance', key)) as { balance: BookTotals };
    results.push({
      merchant,
      report,
      api: { payments: balance.payments, refunds: balance.refunds, count: balance.count },
    });
  }
  return results;
}
