import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, requireScope } from '@checkout/http';
import {
  CreateReportRequest,
  INTERNAL_API_HEADERS,
  REPORT_CSV_CONTENT_TYPE,
  derivedId,
  isIdOf,
  newId,
  type ReportResponse,
  type Scope,
} from '@checkout/contracts';
import type { ReportCommands } from '../domain/reports.use-cases';

function reportIdParam(value: string | undefined): string {
  if (!isIdOf('rpt', value)) throw new DomainError('INVALID_REPORT_ID', `"${value ?? ''}" is not a report id.`);
  return value;
}

/**
 * D42 for reports, as for refunds (refunds.routes.ts): with an Idempotency-Key the report's id comes from the
 * gateway's record of it and from when the key's life began, so a retry after an unknown outcome is the report the
 * first try made, and a key reused once it expired makes a new report. No gateway of an earlier release forwards
 * reports, so there is no id derived from the record alone to meet.
 */
function reportIdFor(ctx: Context, scope: Scope): string {
  const record = ctx.get(INTERNAL_API_HEADERS.idempotencyRecord) || undefined;
  if (record === undefined) return newId('rpt', scope.mode);
  const since = ctx.get(INTERNAL_API_HEADERS.idempotencySince);
  return derivedId('rpt', scope.mode, `report\n${scope.organizationId}\n${record}\n${since}`);
}

/** D52's report runs through the gateway: accepted at once (202), read, and their file streamed. */
export function reportsRoutes(commands: ReportCommands): Router {
  const router = new Router();

  router.post('/internal/reports', async (ctx) => {
    const scope = requireScope(ctx.state);
    const request = parseOrThrow(CreateReportRequest, ctx.request.jsonBody ?? {}, 'REPORT_CREATE_FAILED');
    const body: ReportResponse = { report: await commands.create(scope, reportIdFor(ctx, scope), request) };
    ctx.status = 202;
    ctx.body = body;
  });

  router.get('/internal/reports/:reportId', async (ctx) => {
    const body: ReportResponse = {
      report: await commands.get(requireScope(ctx.state), reportIdParam(ctx.params.reportId)),
    };
    ctx.body = body;
  });

  router.get('/internal/reports/:reportId/file', async (ctx) => {
    const { report, stream } = await commands.file(requireScope(ctx.state), reportIdParam(ctx.params.reportId));
    ctx.type = REPORT_CSV_CONTENT_TYPE;
    ctx.set('Content-Disposition', `attachment; filename="${report.id}.csv"`);
    ctx.body = stream;
  });

  return router;
}
