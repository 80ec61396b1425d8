import { insideOutage, RECOVERY_DEADLINE_MS, type OutageWindow } from './chaos';
import type { RequestRecord } from './client';
import { sessionAnswers, ORPHANED_CREATES } from './ledger-answers';
import { booksRows } from './ledger-books';
import { paymentRows } from './ledger-payments';
import { refundRows, refundsNotStored } from './ledger-refunds';
import { sessionEventRows } from './ledger-session-events';
import type { LedgerContext, LedgerInput, LedgerReport, LedgerRow } from './ledger-types';

// The money and event ledger of the soak: pure functions over what the load generator sent and got back, what
// the API and the receivers show after the drain, and (for payment ids, which no API shows) the orders' own
// records: payments are stored once, in orders. Each row says what it counts; a row marked as a check must be 0.
// Each group of rows has a file of its own (ledger-*.ts); this one puts them in the order the report prints.

export function reconcile(input: LedgerInput): LedgerReport {
  const examples: string[] = [];
  const ctx: LedgerContext = {
    input,
    ordersById: new Map(input.orders.map((o) => [o.id, o])),
    journeysByOrder: new Map(input.journeys.filter((j) => j.orderId).map((j) => [j.orderId as string, j])),
    received: Object.values(input.received).flat(),
    example: (what, detail) => {
      if (examples.filter((e) => e.startsWith(what)).length < 5) examples.push(`${what}: ${detail}`);
    },
  };
  const rows = [...requestRows(ctx), ...paymentRows(ctx), ...sessionEventRows(ctx)];
  const { contradicted, orphaned } = sessionAnswers(ctx);
  // D48: a refund answered 201 must be stored on its order, and one Idempotency-Key names one refund.
  const refundsMissing = refundsNotStored(ctx);
  rows.push({
    label: 'definite answers the final state contradicts',
    value: contradicted + refundsMissing,
    check: true,
  });
  rows.push(...refundRows(ctx));
  if (input.books) rows.push(...booksRows(input.orders, input.books, ctx.example));
  rows.push(...consumerLagRows(ctx));
  rows.push({ label: ORPHANED_CREATES, value: orphaned, check: true });
  rows.push(...contextRows(ctx));
  const violations = rows.filter((r) => r.check && r.value !== 0).length;
  return { rows, violations, examples };
}

/** Groups request outcomes: "201", "503", "connection-error", ... */
function statusTable(records: readonly RequestRecord[], windows: readonly OutageWindow[]) {
  const byOutcome = new Map<string, { total: number; inside: number }>();
  let failedOutside = 0;
  const failedOutsideExamples: string[] = [];
  for (const r of records) {
    const key = String(r.outcome);
    const entry = byOutcome.get(key) ?? { total: 0, inside: 0 };
    entry.total++;
    const inside = insideOutage(windows, r.sentAt, r.doneAt);
    if (inside) entry.inside++;
    byOutcome.set(key, entry);
    const failed = typeof r.outcome !== 'number' || r.outcome >= 500;
    if (failed && !inside) {
      failedOutside++;
      if (failedOutsideExamples.length < 5)
        failedOutsideExamples.push(`${r.route} → ${r.outcome} at ${new Date(r.sentAt).toISOString()}`);
    }
  }
  return { byOutcome, failedOutside, failedOutsideExamples };
}

const UNRECOVERED = `outages not recovered within ${RECOVERY_DEADLINE_MS / 1000} s`;

/** Requests by status; 5xx and unanswered requests only inside outage windows. */
function requestRows({ input, example }: LedgerContext): LedgerRow[] {
  const rows: LedgerRow[] = [];
  const status = statusTable(input.records, input.windows);
  const outcomes = [...status.byOutcome.entries()].sort(([a], [b]) => a.localeCompare(b));
  rows.push({ label: 'requests sent', value: input.records.length, check: false });
  for (const [outcome, { total, inside }] of outcomes) {
    const failed = outcome === 'connection-error' || outcome === 'timeout' || Number(outcome) >= 500;
    rows.push({
      label: `  ${outcome}`,
      value: failed ? `${total} (${inside} inside outage windows)` : total,
      check: false,
    });
  }
  rows.push({ label: '5xx or no answer outside outage windows', value: status.failedOutside, check: true });
  // An outage, inside a window or not, is a 503 the merchant may retry; a 500 is a defect whenever it happens.
  const internalErrors = input.records.filter((r) => r.outcome === 500);
  rows.push({ label: '500 responses (an outage must answer 503)', value: internalErrors.length, check: true });
  for (const r of internalErrors) example('500 responses', `${r.route} at ${new Date(r.sentAt).toISOString()}`);
  const unrecovered = input.windows.filter((w) => !w.recovered);
  rows.push({ label: UNRECOVERED, value: unrecovered.length, check: true });
  for (const w of unrecovered)
    example(UNRECOVERED, `${w.what}: not ready ${((w.readyAt - w.start) / 1000).toFixed(0)} s later`);
  for (const e of status.failedOutsideExamples) example('5xx or no answer outside outage windows', e);
  return rows;
}

/** Every consumer caught up: what a stopped consumer owed shows up above only for the checks that look. */
function consumerLagRows({ input, example }: LedgerContext): LedgerRow[] {
  if (input.consumerLag === undefined) return [];
  let lagging = 0;
  for (const [group, lag] of input.consumerLag) {
    lagging += lag;
    if (lag > 0) example('consumer lag after the drain', `${group}: ${lag} messages not committed`);
  }
  return [{ label: 'messages consumer groups had not consumed after the drain', value: lagging, check: true }];
}

/** Context, and the generator's own health (a crashed journey would hide what it should have checked). */
function contextRows({ input, example }: LedgerContext): LedgerRow[] {
  const rows: LedgerRow[] = [];
  const byKind = new Map<string, number>();
  for (const j of input.journeys) byKind.set(j.kind, (byKind.get(j.kind) ?? 0) + 1);
  rows.push({
    label: 'journeys',
    value: `${input.journeys.length} (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')})`,
    check: false,
  });
  const creates = new Map<string, number>();
  for (const j of input.journeys)
    creates.set(j.created ?? 'not tried', (creates.get(j.created ?? 'not tried') ?? 0) + 1);
  rows.push({ label: 'creates', value: [...creates].map(([k, n]) => `${k} ${n}`).join(', '), check: false });
  const states = new Map<string, number>();
  for (const s of input.sessions.values()) states.set(s.status, (states.get(s.status) ?? 0) + 1);
  rows.push({ label: 'sessions by status', value: [...states].map(([k, n]) => `${k} ${n}`).join(', '), check: false });
  rows.push({ label: 'events recorded', value: input.events.length, check: false });
  rows.push({
    label: 'outage windows',
    value: input.windows.map((w) => `${w.what} ${((w.end - w.start) / 1000).toFixed(1)} s`).join('; ') || 'none',
    check: false,
  });
  rows.push({ label: 'journeys skipped (generator saturated)', value: input.skippedJourneys, check: false });
  rows.push({ label: 'load generator errors', value: input.generatorErrors.length, check: true });
  rows.push({ label: 'ledger reads refused after the drain', value: input.unreadable?.length ?? 0, check: true });
  for (const e of (input.unreadable ?? []).slice(0, 3)) example('ledger reads refused after the drain', e);
  for (const e of input.generatorErrors.slice(0, 5)) example('load generator errors', e);
  return rows;
}

export function formatLedger(report: LedgerReport): string {
  const width = Math.max(...report.rows.map((r) => r.label.length));
  const lines = report.rows.map(
    (r) =>
      `${r.label.padEnd(width)}  ${String(r.value).padStart(6)}${r.check ? (r.value === 0 ? '  ok' : '  VIOLATION') : ''}`,
  );
  return [
    `${'ledger'.padEnd(width)}  ${'value'.padStart(6)}`,
    '-'.repeat(width + 12),
    ...lines,
    '-'.repeat(width + 12),
    report.violations === 0 ? 'no violations' : `${report.violations} check(s) violated`,
    ...report.examples.map((e) => `  ${e}`),
  ].join('\n');
}
