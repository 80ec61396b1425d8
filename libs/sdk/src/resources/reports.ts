import type { Report, ReportResponse } from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import { isoWindow } from '../pagination';
import type { ReportCreateParams } from '../types';

const path = (id: string) => `/v0/reports/${encodeURIComponent(id)}`;

/**
 * D52: report runs. `create` starts one (`pending`); `retrieve` until it is `succeeded` (or `failed`); then the CSV
 * with `downloadFile` (the text) or `streamFile` (the bytes as they come, for a large one).
 */
export class Reports {
  constructor(private readonly http: HttpClient) {}

  /** Asynchronous; the same Idempotency-Key (yours, or the one the SDK makes for its retries) is the same report. */
  async create(params: ReportCreateParams, options?: RequestOptions): Promise<Report> {
    const body = { ...params, ...isoWindow(params) };
    return (await this.http.request<ReportResponse>('POST', '/v0/reports', { body, ...(options && { options }) }))
      .report;
  }

  async retrieve(id: string): Promise<Report> {
    return (await this.http.request<ReportResponse>('GET', path(id))).report;
  }

  /** The report's CSV as text (UTF-8). A report not yet succeeded: CheckoutApiError `REPORT_NOT_READY`. */
  async downloadFile(id: string): Promise<string> {
    return (await this.http.file(`${path(id)}/file`)).text();
  }

  /** The report's CSV as a stream of bytes (`Readable.fromWeb` makes a Node stream of it), never held whole. */
  async streamFile(id: string): Promise<ReadableStream<Uint8Array>> {
    const response = await this.http.file(`${path(id)}/file`);
    return response.body ?? new ReadableStream({ start: (controller) => controller.close() });
  }
}
