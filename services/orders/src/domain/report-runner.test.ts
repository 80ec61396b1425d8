import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReportDocument, ReportLease } from '../store/report.document';
import type { ReportEventsOutbox, ReportFiles, ReportOutcome, ReportSources, StoredReports } from './report-ports';
import type { ReportRef } from './report-ports';
import { REPORT_MAX_RUNS, REPORT_SETTLE_MARGIN_MS, ReportRunner } from './report-runner';

// D52's runner against fakes of its ports: a report's runs end it once, a run that keeps failing ends it `failed`
// with its event after REPORT_MAX_RUNS, a run that lost its lease changes nothing, and asOf is the start less the
// settle margin. The real engines' side (leases taken over, GridFS, cursors) is reports.component.test.ts.

const NOW = new Date('2026-03-01T12:00:00.000Z');

class MemoryReports implements StoredReports {
  readonly docs = new Map<string, ReportDocument>();
  insertOnce(): Promise<ReportDocument> {
    throw new Error('not used');
  }
  get(_scope: unknown, id: string) {
    return Promise.resolve(this.docs.get(id) ?? null);
  }
  claim(lease: ReportLease, now: Date, report?: ReportRef) {
    const free = [...this.docs.values()].find(
      (d) =>
        d.status === 'pending' && (report === undefined || d._id === report._id) && (!d.lease || d.lease.until < now),
    );
    if (!free) return Promise.resolve(null);
    const claimed = { ...free, lease, attempts: free.attempts + 1 };
    this.docs.set(free._id, claimed);
    return Promise.resolve(claimed);
  }
  renew(report: ReportRef, lease: ReportLease) {
    const doc = this.docs.get(report._id);
    return Promise.resolve(doc?.lease?.owner === lease.owner);
  }
  finish(doc: ReportDocument, owner: string, outcome: ReportOutcome, withEvent: (d: ReportDocument) => ReportDocument) {
    const current = this.docs.get(doc._id);
    if (current?.status !== 'pending' || current.lease?.owner !== owner) return Promise.resolve(null);
    const { lease: _lease, ...rest } = current;
    const ended = withEvent({ ...rest, ...outcome });
    this.docs.set(doc._id, ended);
    return Promise.resolve(ended);
  }
  expired() {
    return Promise.resolve([]);
  }
  remove(report: ReportRef) {
    this.docs.delete(report._id);
    return Promise.resolve();
  }
}

/** The lease of a report lapses (its holder's time is up). */
function lapse(reports: MemoryReports, id: string): void {
  const doc = reports.docs.get(id);
  if (doc?.lease) reports.docs.set(id, { ...doc, lease: { ...doc.lease, until: new Date(NOW.getTime() - 1) } });
}

function pending(id: string): ReportDocument {
  return {
    _id: id,
    organizationId: 'org_1',
    mode: 'test',
    type: 'balance_transactions',
    status: 'pending',
    createdAfter: new Date('2026-01-01T00:00:00.000Z'),
    createdBefore: new Date('2026-02-01T00:00:00.000Z'),
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 30 * 86_400_000),
    attempts: 0,
    outbox: [],
    outboxPending: false,
  };
}

function setUp(options: { failWrites?: number } = {}) {
  const reports = new MemoryReports();
  const written = new Map<string, string>();
  const deleted: string[] = [];
  let failures = options.failWrites ?? 0;
  const files: ReportFiles = {
    async write(fileId, chunks) {
      let text = '';
      for await (const chunk of chunks) text += Buffer.from(chunk).toString('utf8');
      if (failures > 0) {
        failures -= 1;
        throw new Error('the database went away');
      }
      written.set(fileId, text);
    },
    read: (fileId) => Readable.from([written.get(fileId) ?? '']),
    delete: (ids) => {
      deleted.push(...ids);
      return Promise.resolve();
    },
  };
  const windows: unknown[] = [];
  const sources: ReportSources = {
    async *balanceTransactions(_scope, window) {
      windows.push(window);
      yield await Promise.resolve({
        _id: 'txn_test_1',
        organizationId: 'org_1',
        mode: 'test' as const,
        type: 'refund' as const,
        orderId: 'ord_test_1',
        sourceId: 're_test_1',
        amount: -500,
        currency: 'EUR',
        createdAt: new Date('2026-01-02T00:00:00.000Z'),
        recordedAt: new Date('2026-01-02T00:00:01.000Z'),
        counted: true,
      });
    },
    orders: () => Readable.from([]),
    refunds: () => Readable.from([]),
  };
  const published: ReportDocument[] = [];
  const events: ReportEventsOutbox = {
    withEvent: (doc, now) => ({
      ...doc,
      outbox: [{ eventId: `evt_${doc.status}`, topic: 't', key: doc._id, value: doc.status, createdAt: now }],
      outboxPending: true,
    }),
    publishWritten: (doc) => {
      published.push(doc);
      return Promise.resolve();
    },
  };
  const errors: unknown[] = [];
  const runner = new ReportRunner({
    reports,
    sources,
    files,
    events,
    clock: () => NOW,
    leaseMs: 60_000,
    onError: (err) => errors.push(err),
  });
  return { reports, runner, written, deleted, published, windows, errors };
}

describe('the report runner (D52)', () => {
  it('When a report runs, then it succeeds once with its rows, its file and its event, asOf the start less the margin', async () => {
    const { reports, runner, written, published, windows } = setUp();
    reports.docs.set('rpt_test_1', pending('rpt_test_1'));
    expect(await runner.poll()).toBe(1);
    const done = reports.docs.get('rpt_test_1');
    expect(done).toMatchObject({ status: 'succeeded', rows: 1, fileId: 'rpt_test_1.1', attempts: 1 });
    expect(done?.lease).toBeUndefined();
    expect(done?.asOf?.getTime()).toBe(NOW.getTime() - REPORT_SETTLE_MARGIN_MS);
    expect(windows).toEqual([expect.objectContaining({ asOf: done?.asOf })]);
    expect(written.get('rpt_test_1.1')).toBe(
      'id,type,orderId,sourceId,amount,currency,createdAt,recordedAt\r\n' +
        'txn_test_1,refund,ord_test_1,re_test_1,-500,EUR,2026-01-02T00:00:00.000Z,2026-01-02T00:00:01.000Z\r\n',
    );
    expect(published.map((d) => d.outbox[0]?.eventId)).toEqual(['evt_succeeded']);
    expect(await runner.poll()).toBe(0);
  });

  it('When every run fails, then the report is retried and ends failed with report.failed after the last run', async () => {
    const { reports, runner, published, deleted, errors } = setUp({ failWrites: REPORT_MAX_RUNS });
    reports.docs.set('rpt_test_2', pending('rpt_test_2'));
    for (let run = 1; run < REPORT_MAX_RUNS; run += 1) {
      expect(await runner.poll()).toBe(1);
      expect(reports.docs.get('rpt_test_2')).toMatchObject({ status: 'pending', attempts: run });
      // The failed run's lease stands until it lapses: the next poll finds nothing to take before that.
      expect(await runner.poll()).toBe(0);
      lapse(reports, 'rpt_test_2');
    }
    await runner.poll();
    expect(reports.docs.get('rpt_test_2')).toMatchObject({ status: 'failed', failureReason: 'internal_error' });
    expect(published.map((d) => d.outbox[0]?.eventId)).toEqual(['evt_failed']);
    expect(errors).toHaveLength(REPORT_MAX_RUNS);
    // Each failed run's file is deleted, and each run first deletes what the runs before it left.
    expect(deleted).toEqual(expect.arrayContaining(['rpt_test_2.1', 'rpt_test_2.2', 'rpt_test_2.3']));
  });

  it('When a run lost its lease before it ended, then it changes nothing and deletes its own file', async () => {
    const { reports, runner, published, deleted } = setUp();
    const doc = pending('rpt_test_3');
    reports.docs.set(doc._id, doc);
    const finish = reports.finish.bind(reports);
    // Another replica took the report over while this run wrote its file.
    reports.finish = (claimed, owner, outcome, withEvent) => {
      reports.docs.set(claimed._id, { ...claimed, lease: { owner: 'another', until: new Date(NOW.getTime() + 1) } });
      return finish(claimed, owner, outcome, withEvent);
    };
    await runner.poll();
    expect(reports.docs.get(doc._id)).toMatchObject({ status: 'pending', lease: { owner: 'another' } });
    expect(published).toEqual([]);
    expect(deleted).toContain('rpt_test_3.1');
  });
});
