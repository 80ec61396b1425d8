import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { DomainError } from '@checkout/errors';
import { newNonce, pageHeaders } from '@checkout/html';
import { readUrlEncodedForm } from '@checkout/http';
import { isIdOf, type Scope } from '@checkout/contracts';
import type { Logger } from '@checkout/logger';
import type { BrandSettings } from '../../domain/brand-settings';
import type { DashboardLogins } from '../../domain/dashboard-logins';
import type { DashboardOwners } from '../../domain/dashboard-reads';
import { csrfTokenFor, csrfTokenMatches } from '../../domain/dashboard-tokens';
import type { RateLimiter } from '../../domain/rate-limit';
import type { KeyCache } from '../authenticate';
import type { MerchantBudgets } from '../../domain/budgets';
import type { PageContext } from './layout';

// What every section of the dashboard's routes shares: its dependencies, the session's state, the page's
// headers and context, the CSRF-checked form and the id in the path.

export interface DashboardDeps {
  /** D47's login links and sessions. */
  logins: DashboardLogins;
  /** The owners whose internal APIs the pages read and act through, with the session's scope. */
  upstreams: DashboardOwners;
  keys: KeyCache;
  /** The hosted page's brand and default locale: the Settings page shows and changes them. */
  brand: BrandSettings;
  /** The daily budgets of the writes that record events: the dashboard's count as the API's do. */
  budgets: Pick<MerchantBudgets, 'check'>;
  /** The per-key limit API requests count against (D43): a session's pages count against its key's. */
  perKey: RateLimiter;
  /** How long a cookie that matches no session is remembered as unknown (UNKNOWN_KEY_CACHE_MS). */
  unknownSessionCacheMs: number;
  publicBaseUrl: string;
  linkTtlMs: number;
  sessionTtlMs: number;
  clock: () => Date;
  logger: Logger;
}

/** A section's routes: the pages router (under /dashboard), what they read through, and the session check. */
export type MountSection = (pages: Router, deps: DashboardDeps, session: Middleware) => void;

export interface DashboardState {
  scope: Scope;
  organizationName: string;
  token: string;
  tokenHash: string;
}

declare module 'koa' {
  interface DefaultState {
    dashboard?: DashboardState;
    nonce?: string;
  }
}

export const MAX_FORM_BYTES = 4 * 1024;

/** The headers of every dashboard response: a CSP that allows no script at all and only this response's <style>. */
export function secure(ctx: Context): string {
  const nonce = newNonce();
  ctx.state.nonce = nonce;
  ctx.set(pageHeaders({ nonce }));
  return nonce;
}

export const one = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export const requestId = (ctx: Context) => String(ctx.state.requestId);
export const scopeOf = (ctx: Context) => (ctx.state.dashboard as DashboardState).scope;

/**
 * A form that records events (a refund, a redelivery, a recovery, a report), past its organization and mode's daily
 * budget: 429 QUOTA_EXCEEDED, as the same write through the API.
 */
export function withinBudget(deps: Pick<DashboardDeps, 'budgets'>): Middleware {
  return async (ctx, next) => {
    await deps.budgets.check(scopeOf(ctx), requestId(ctx));
    await next();
  };
}

export function pageCtx(ctx: Context, section: PageContext['section']): PageContext {
  const state = ctx.state.dashboard as DashboardState;
  return {
    nonce: String(ctx.state.nonce),
    mode: state.scope.mode,
    organizationName: state.organizationName,
    csrfToken: csrfTokenFor(state.token),
    section,
  };
}

export function respond(ctx: Context, body: string): void {
  ctx.type = 'html';
  ctx.body = body;
}

/** After a form that changed something: on to the page that shows it (303, so a reload does not post again). */
export function seeOther(ctx: Context, to: string): void {
  ctx.redirect(to);
  ctx.status = 303;
}

/** The CSRF token tied to this session must come with every POST (D47), read before anything is done. */
export async function verifiedForm(ctx: Context): Promise<URLSearchParams> {
  const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
  if (!csrfTokenMatches((ctx.state.dashboard as DashboardState).token, form.get('csrf') ?? undefined))
    throw new DomainError('CSRF_TOKEN_INVALID', 'Missing or wrong CSRF token.');
  return form;
}

const NOT_FOUND_OF = {
  ord: 'ORDER_NOT_FOUND',
  cs: 'SESSION_NOT_FOUND',
  evt: 'EVENT_NOT_FOUND',
  we: 'WEBHOOK_ENDPOINT_NOT_FOUND',
} as const;

/** The id in the path. A malformed one is "not found" here too: a page has no field to blame (the API says 400, D4). */
export function idParam(prefix: keyof typeof NOT_FOUND_OF, value: string | undefined): string {
  if (!isIdOf(prefix, value)) throw new DomainError(NOT_FOUND_OF[prefix], 'No such id.');
  return value;
}

export const twentyFourHoursBefore = (now: Date) => new Date(now.getTime() - 24 * 3_600_000).toISOString().slice(0, 19);
