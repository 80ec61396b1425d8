import { randomBytes } from 'node:crypto';
import type { ReportDocument } from '../store/report.document';
import type {
  ReportEventsOutbox,
  ReportFiles,
  ReportOutcome,
  ReportRef,
  ReportSources,
  StoredReports,
} from './report-ports';
import { reportChunks } from './report-rows';

/**
 * D52's asOf: a run reads what was recorded up to its start less this margin. A record is stamped (recordedAt, an
 * order's createdAt) just before its insert, so one stamped before asOf is visible to the cursor once its insert has
 * landed; 2 s is far above an insert's latency and a small clock skew between replicas (docs/books.md, "Reports").
 */
export const REPORT_SETTLE_MARGIN_MS = 2_000;
/** Runs of one report before it is `failed`: a crash or an outage is retried, a report that cannot be built is not. */
export const REPORT_MAX_RUNS = 3;
/** Expired reports deleted per retention pass. */
const EXPIRED_BATCH = 100;

export interface ReportRunnerDeps {
  reports: StoredReports;
  sources: ReportSources;
  files: ReportFiles;
  events: ReportEventsOutbox;
  clock: () => Date;
  /** How long a claim holds unrenewed: a crashed runner's report is taken over this long after its last renewal. */
  leaseMs: number;
  onError: (err: unknown, reportId: string) => void;
}

class LeaseLost extends Error {}

/** Each run writes a file of its own; a report's files are those of its runs so far. */
const fileIdOf = (reportId: string, run: number): string => `${reportId}.${run}`;
const filesOf = (doc: ReportDocument, below = doc.attempts + 1): string[] =>
  Array.from({ length: below - 1 }, (_, i) => fileIdOf(doc._id, i + 1));

/**
 * Builds reports off the request path (D52). A run is claimed by one replica with a lease on the report document
 * (one conditional update), renewed while the file is written; a runner that crashes stops renewing and another
 * replica's poll takes the report over once the lease has expired. The run that ends it writes its status and its
 * event in one conditional update naming its lease, so a run that lost its lease (a zombie) changes nothing.
 */
export class ReportRunner {
  private readonly owner = randomBytes(9).toString('base64url');
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: ReportRunnerDeps) {}

  /** Starts the report at once on this replica (the one that accepted it); the poll finds it otherwise. */
  kick(report: ReportRef): void {
    const run = this.claimAndRun(report).catch((err: unknown) => this.deps.onError(err, report._id));
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Runs every pending report free to take, one after the other; returns how many it ran. */
  async poll(): Promise<number> {
    let ran = 0;
    for (let doc = await this.claim(); doc; doc = await this.claim()) {
      await this.run(doc);
      ran += 1;
    }
    return ran;
  }

  /** D52's retention: reports past their 30 days go, with their files (files first: a crash between retries). */
  async sweepExpired(): Promise<number> {
    const expired = await this.deps.reports.expired(this.deps.clock(), EXPIRED_BATCH);
    for (const doc of expired) {
      await this.deps.files.delete(filesOf(doc));
      await this.deps.reports.remove(doc);
    }
    return expired.length;
  }

  /** Waits for the runs this replica started. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private lease(): { owner: string; until: Date } {
    return { owner: this.owner, until: new Date(this.deps.clock().getTime() + this.deps.leaseMs) };
  }

  private claim(report?: ReportRef): Promise<ReportDocument | null> {
    return this.deps.reports.claim(this.lease(), this.deps.clock(), report);
  }

  private async claimAndRun(report: ReportRef): Promise<void> {
    const doc = await this.claim(report);
    if (doc) await this.run(doc);
  }

  private async run(doc: ReportDocument): Promise<void> {
    const { reports, files } = this.deps;
    let held = true;
    const renewal = setInterval(
      () => {
        void reports.renew(doc, this.lease()).then(
          (renewed) => (held &&= renewed),
          () => undefined,
        );
      },
      Math.max(50, Math.floor(this.deps.leaseMs / 3)),
    );
    try {
      await this.build(doc, () => held);
    } catch (err) {
      // This run's file is never read: another run owns the report now, or this one ends it without a file.
      await files.delete([fileIdOf(doc._id, doc.attempts)]).catch(() => undefined);
      if (err instanceof LeaseLost) return;
      this.deps.onError(err, doc._id);
      // Retried once its lease lapses (the lease is the back-off: an outage is not hammered by one poll after another).
      if (doc.attempts >= REPORT_MAX_RUNS)
        await this.end(doc, { status: 'failed', failureReason: 'internal_error', finishedAt: this.deps.clock() });
    } finally {
      clearInterval(renewal);
    }
  }

  private async build(doc: ReportDocument, held: () => boolean): Promise<void> {
    const { files, sources } = this.deps;
    const startedAt = this.deps.clock();
    const window = {
      createdAfter: doc.createdAfter,
      createdBefore: doc.createdBefore,
      asOf: new Date(startedAt.getTime() - REPORT_SETTLE_MARGIN_MS),
    };
    // The chunks an earlier run left (it crashed, or lost its lease) are never read: delete them now.
    await files.delete(filesOf(doc, doc.attempts));
    let rows = 0;
    const fileId = fileIdOf(doc._id, doc.attempts);
    await files.write(
      fileId,
      whileHeld(
        reportChunks(doc.type, sources, doc, window, (n) => (rows = n)),
        held,
      ),
    );
    const ended = await this.end(doc, {
      status: 'succeeded',
      rows,
      asOf: window.asOf,
      fileId,
      finishedAt: this.deps.clock(),
    });
    if (!ended) throw new LeaseLost();
  }

  private async end(doc: ReportDocument, outcome: ReportOutcome): Promise<ReportDocument | null> {
    const { reports, events } = this.deps;
    const now = outcome.finishedAt;
    const ended = await reports.finish(doc, this.owner, outcome, (finished) => events.withEvent(finished, now));
    if (ended) await events.publishWritten(ended);
    return ended;
  }
}

/** The chunks, for as long as this runner holds the lease: a run that lost it stops writing at its next chunk. */
async function* whileHeld(chunks: AsyncIterable<Buffer>, held: () => boolean): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    if (!held()) throw new LeaseLost();
    yield chunk;
  }
}
