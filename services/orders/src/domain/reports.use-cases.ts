import type { Readable } from 'node:stream';
import { DomainError } from '@checkout/errors';
import { REPORT_RETENTION_DAYS, type CreateReportRequest, type Report } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import type { ReportDocument } from '../store/report.document';
import type { ReportFiles, ReportRef, StoredReports } from './report-ports';
import { presentReport } from './report.presenter';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the routes need of the runner: the report just accepted starts at once on this replica. */
export interface ReportStarter {
  kick(report: ReportRef): void;
}

/** D52's report runs as the API sees them: accepted at once, built by the runner, served from their file. */
export class ReportCommands {
  constructor(
    private readonly deps: { reports: StoredReports; files: ReportFiles; runner: ReportStarter; clock: () => Date },
  ) {}

  /**
   * Accepts a report (`id`: derived from the Idempotency-Key, so a retry meets the report the first try made) and
   * starts it; the report as it is now, `pending` or already done.
   */
  async create(scope: Scope, id: string, request: CreateReportRequest): Promise<Report> {
    const now = this.deps.clock();
    const stored = await this.deps.reports.insertOnce(scope, {
      _id: id,
      type: request.type,
      status: 'pending',
      createdAfter: new Date(request.createdAfter),
      createdBefore: new Date(request.createdBefore),
      createdAt: now,
      expiresAt: new Date(now.getTime() + REPORT_RETENTION_DAYS * DAY_MS),
      attempts: 0,
      outbox: [],
      outboxPending: false,
    });
    if (stored.status === 'pending') this.deps.runner.kick(stored);
    return presentReport(stored);
  }

  async get(scope: Scope, id: string): Promise<Report> {
    return presentReport(await this.live(scope, id));
  }

  /** The file of a succeeded report, streamed from where it is stored. */
  async file(scope: Scope, id: string): Promise<{ report: Report; stream: Readable }> {
    const doc = await this.live(scope, id);
    if (doc.status !== 'succeeded' || doc.fileId === undefined)
      throw new DomainError('REPORT_NOT_READY', `Report ${id} is ${doc.status}: it has no file.`);
    return { report: presentReport(doc), stream: this.deps.files.read(doc.fileId) };
  }

  /** D52: a report past its 30 days is gone, whether or not the retention sweep has deleted it yet. */
  private async live(scope: Scope, id: string): Promise<ReportDocument> {
    const doc = await this.deps.reports.get(scope, id);
    if (!doc || doc.expiresAt.getTime() <= this.deps.clock().getTime())
      throw new DomainError('REPORT_NOT_FOUND', `No report ${id}.`);
    return doc;
  }
}
