import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { LRUCache } from 'lru-cache';
import type { Context, Middleware, Next } from 'koa';
import { DependencyUnavailableError, DomainError, isDomainError } from '@checkout/errors';
import { isInfrastructureUnavailable, readUrlEncodedForm } from '@checkout/http';
import { REFUND_REASONS, isIdOf, type LoginLinkResponse, type RefundReason, type Scope } from '@checkout/contracts';
import type { Logger } from '@checkout/logger';
import type { DashboardLogins } from '../domain/dashboard-logins';
import { orderView, overview, refundOrder, sessionView, type DashboardOwners } from '../domain/dashboard-reads';
import type { KeyCache } from './authenticate';
import type { RateLimiter } from '../domain/rate-limit';
import { refundAmountFromForm, sinceFromForm } from '../domain/dashboard-views';
import {
  csrfTokenFor,
  csrfTokenMatches,
  hashToken,
  isTokenShaped,
  loginProofFor,
  loginProofMatches,
  newToken,
} from '../domain/dashboard-tokens';
import { deliveryHostsChart, paymentsPerHourChart } from './dashboard/charts';
import { money } from './dashboard/html';
import { mountEndpointPages } from './dashboard-endpoints.routes';
import {
  confirmPage,
  eventPage,
  eventsPage,
  loginPage,
  messagePage,
  orderPage,
  ordersPage,
  overviewPage,
  sessionPage,
  sessionsPage,
  type EventFilters,
  type PageContext,
} from './dashboard/render';

const DASHBOARD_COOKIE = 'checkout_dashboard';
const MAX_FORM_BYTES = 4 * 1024;

export interface DashboardDeps {
  /** D47's login links and sessions. */
  logins: DashboardLogins;
  /** The owners whose internal APIs the pages read and act through, with the session's scope. */
  upstreams: DashboardOwners;
  keys: KeyCache;
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

interface DashboardState {
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

/** The headers of every dashboard response: a CSP that allows no script at all and only this response's <style>. */
function secure(ctx: Context): string {
  const nonce = randomBytes(16).toString('base64');
  ctx.state.nonce = nonce;
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      "img-src 'self' data:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  return nonce;
}

const NOT_FOUND_CODES = new Set([
  'ORDER_NOT_FOUND',
  'REFUND_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'EVENT_NOT_FOUND',
  'INVALID_ORDER_ID',
  'INVALID_SESSION_ID',
  'INVALID_EVENT_ID',
  'WEBHOOK_ENDPOINT_NOT_FOUND',
  'INVALID_WEBHOOK_ENDPOINT_ID',
  'NOT_FOUND',
]);

/**
 * Errors on dashboard pages are pages, not JSON. The status is still the one libs/errors maps the code to (so
 * no route here sets a 4xx); only the body differs. A used, expired or unknown link says so plainly; another
 * organization's id is the same "not found" as an unknown one (D4).
 */
function htmlErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const nonce = ctx.state.nonce ?? secure(ctx);
      let title: string;
      let message: string;
      let link: { href: string; label: string } | undefined = { href: '/dashboard', label: 'Back to the dashboard' };
      if (isDomainError(err)) {
        ctx.status = err.status;
        if (err.code === 'LOGIN_LINK_INVALID') {
          title = 'This login link cannot be used';
          message =
            'Login links work once, for 5 minutes. This one has been used already, has expired, or does not exist. Create a new one with your secret key (npm run cli -- dashboard, or POST /v0/dashboard/login_links).';
          link = undefined;
        } else if (err.code === 'DASHBOARD_LOGIN_REQUIRED') {
          title = 'Please log in';
          message =
            'Your dashboard session has ended (it lasts 12 hours, and ends when its API key is revoked or you log out). Open a new login link to continue.';
          link = undefined;
        } else if (err.code === 'RATE_LIMITED') {
          if (err.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.retryAfterSeconds));
          title = 'Too many requests';
          message = `This API key's requests, the dashboard's included, are over its rate limit. Reload the page in ${err.retryAfterSeconds ?? 1} s.`;
        } else if (err.code === 'CSRF_TOKEN_INVALID') {
          title = 'Please try again';
          message = 'This form could not be verified. Go back, reload the page and submit it again.';
        } else if (NOT_FOUND_CODES.has(err.code)) {
          title = 'Not found';
          message = 'There is nothing with this id in this organization and mode.';
        } else {
          title = 'That did not work';
          message = err.message;
        }
      } else if (err instanceof DependencyUnavailableError || isInfrastructureUnavailable(err)) {
        ctx.status = 503;
        ctx.set('Retry-After', '1');
        logger.warn(
          { err: err instanceof Error ? { name: err.name, message: err.message } : String(err) },
          'dashboard dependency unavailable',
        );
        title = 'Temporarily unavailable';
        message = 'A service behind the dashboard did not answer. Reload the page in a moment.';
      } else {
        throw err;
      }
      ctx.type = 'html';
      ctx.body = messagePage(nonce, title, message, link);
    }
  };
}

function cookieLine(
  name: string,
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean): string =>
  cookieLine(DASHBOARD_COOKIE, token, { path: '/dashboard', maxAgeSeconds, secure });

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

const requestId = (ctx: Context) => String(ctx.state.requestId);
const scopeOf = (ctx: Context) => (ctx.state.dashboard as DashboardState).scope;
const twentyFourHoursBefore = (now: Date) => new Date(now.getTime() - 24 * 3_600_000).toISOString().slice(0, 19);

function pageCtx(ctx: Context, section: PageContext['section']): PageContext {
  const state = ctx.state.dashboard as DashboardState;
  return {
    nonce: String(ctx.state.nonce),
    mode: state.scope.mode,
    organizationName: state.organizationName,
    csrfToken: csrfTokenFor(state.token),
    section,
  };
}

function html(ctx: Context, body: string): void {
  ctx.type = 'html';
  ctx.body = body;
}

/** The CSRF token tied to this session must come with every POST (D47), read before anything is done. */
async function verifiedForm(ctx: Context): Promise<URLSearchParams> {
  const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
  if (!csrfTokenMatches((ctx.state.dashboard as DashboardState).token, form.get('csrf') ?? undefined))
    throw new DomainError('CSRF_TOKEN_INVALID', 'Missing or wrong CSRF token.');
  return form;
}

function idParam(
  prefix: 'ord' | 'cs' | 'evt',
  value: string | undefined,
  code: 'ORDER_NOT_FOUND' | 'SESSION_NOT_FOUND' | 'EVENT_NOT_FOUND',
): string {
  // A malformed id is "not found" here too: a page has no field to blame (the API says 400 for it, D4).
  if (!isIdOf(prefix, value)) throw new DomainError(code, 'No such id.');
  return value;
}

function createLoginLink(deps: DashboardDeps): Middleware {
  return async (ctx) => {
    const scope = ctx.state.scope;
    const apiKeyId = ctx.state.apiKeyId;
    const keyLookupId = ctx.state.apiKeyLookupId;
    if (!scope || apiKeyId === undefined || keyLookupId === undefined)
      throw new DomainError('UNAUTHORIZED', 'Send your secret API key.');
    const { token, expiresAt } = await deps.logins.createLink(scope, { apiKeyId, keyLookupId });
    const body: LoginLinkResponse = {
      url: `${deps.publicBaseUrl}/dashboard/login/${token}`,
      expiresAt: expiresAt.toISOString(),
    };
    ctx.status = 201;
    ctx.body = body;
  };
}

/**
 * The browser that opened a login link's page holds this cookie (a random nonce, 5 minutes, sent only to the
 * login route); the page's form carries loginProofFor(nonce, link). It opens nothing by itself.
 */
const LOGIN_NONCE_COOKIE = 'checkout_dashboard_login';

// D47: opening a link (GET, or HEAD) only shows a page naming the organization and mode, with a button; nothing
// is used and no session starts, so a mail or chat scanner that fetches the link neither burns it nor gets a
// session. The button's POST uses the link (one conditional update) and starts the session.
// Login CSRF (an attacker's own link, or a form on the attacker's site posting to it, logging a victim into the
// attacker's organization): the POST must come from the browser that opened the page. The GET sets a nonce
// cookie, SameSite=Strict and HttpOnly, and the form carries an HMAC of the link keyed by it; a page on another
// site can make the browser POST but neither read the nonce nor have the Strict cookie sent with it. Sec-Fetch-Site,
// where the browser sends it, must also say same-origin (a sibling subdomain is "same-site" for SameSite).
// The page itself names the organization, so a victim sent an attacker's link sees whose dashboard it opens.
function showLoginLink(deps: DashboardDeps, secureCookie: boolean): Middleware {
  return async (ctx) => {
    const { token } = ctx.params as { token?: string };
    const hash = isTokenShaped(token) ? hashToken(token) : undefined;
    const link = hash ? await deps.logins.usableLink(hash) : null;
    const organization = link ? await deps.keys.activeOrganization(link.keyLookupId) : null;
    if (!link || !hash || !organization) throw linkInvalid();
    const nonce = newToken();
    // A HEAD gets the page's status and headers, but no nonce: nothing can be submitted from it.
    if (ctx.method === 'GET')
      ctx.append(
        'Set-Cookie',
        cookieLine(LOGIN_NONCE_COOKIE, nonce, {
          path: '/dashboard/login',
          maxAgeSeconds: Math.ceil(deps.linkTtlMs / 1000),
          secure: secureCookie,
        }),
      );
    html(
      ctx,
      loginPage(String(ctx.state.nonce), {
        organizationName: organization.name,
        mode: link.mode,
        action: `/dashboard/login/${token}`,
        proof: loginProofFor(nonce, hash),
      }),
    );
  };
}

const linkInvalid = () =>
  new DomainError('LOGIN_LINK_INVALID', 'This login link was used, has expired, or does not exist.');

// The button: checks that this browser opened the page (before the link is used, so a forged POST burns
// nothing), uses the link with one conditional update, starts the session and moves on to /dashboard with a
// 303 (the POST came from our own page, so the new SameSite=Strict cookie goes with that navigation).
function useLoginLink(deps: DashboardDeps, secureCookie: boolean): Middleware {
  return async (ctx) => {
    const { token } = ctx.params as { token?: string };
    if (!isTokenShaped(token)) throw linkInvalid();
    const hash = hashToken(token);
    const fetchSite = ctx.get('sec-fetch-site');
    const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
    const nonce = ctx.cookies.get(LOGIN_NONCE_COOKIE);
    if (
      (fetchSite !== '' && fetchSite !== 'same-origin') ||
      !isTokenShaped(nonce) ||
      !loginProofMatches(nonce, hash, form.get('proof') ?? undefined)
    )
      throw new DomainError('CSRF_TOKEN_INVALID', 'This login form was not sent from the page that opened the link.');
    const link = await deps.logins.useLink(hash);
    if (!link) throw linkInvalid();
    if (!(await deps.keys.activeOrganization(link.keyLookupId)))
      throw new DomainError('LOGIN_LINK_INVALID', 'The API key of this login link is no longer active.');
    const { token: sessionToken } = await deps.logins.startSession(link);
    ctx.append('Set-Cookie', sessionCookie(sessionToken, Math.floor(deps.sessionTtlMs / 1000), secureCookie));
    ctx.append(
      'Set-Cookie',
      cookieLine(LOGIN_NONCE_COOKIE, '', { path: '/dashboard/login', maxAgeSeconds: 0, secure: secureCookie }),
    );
    ctx.redirect('/dashboard');
    ctx.status = 303;
  };
}

/**
 * Every page but the login link needs a live session whose API key is still active: revoking the key ends the
 * session. Each page counts against that key's rate limit (D43), as an API request does: the dashboard is no
 * way around it (its overview asks two owners to sum a week of payments and a day of attempts). A cookie that
 * matches no session is remembered as unknown for a while (a bounded cache in this replica), so repeating one
 * costs no database read; a session started meanwhile has a new random token, never looked up before, so the
 * cache cannot refuse it, on this replica or any other.
 */
function requireSession(deps: DashboardDeps): Middleware {
  const unknown = new LRUCache<string, true>({ max: 10_000, ttl: Math.max(deps.unknownSessionCacheMs, 1) });
  return async (ctx: Context, next: Next) => {
    const token = ctx.cookies.get(DASHBOARD_COOKIE);
    if (!isTokenShaped(token)) throw loginRequired();
    const tokenHash = hashToken(token);
    if (unknown.has(tokenHash)) throw loginRequired();
    const found = await deps.logins.liveSession(tokenHash);
    if (!found) {
      unknown.set(tokenHash, true);
      throw loginRequired();
    }
    const organization = await deps.keys.activeOrganization(found.keyLookupId);
    if (!organization) throw loginRequired();
    const retryAfter = deps.perKey.admit(found.apiKeyId, Date.now());
    if (retryAfter > 0)
      throw new DomainError('RATE_LIMITED', 'Too many requests for this API key; retry after the indicated delay.', {
        retryAfterSeconds: retryAfter,
      });
    ctx.state.dashboard = {
      scope: { organizationId: found.organizationId, mode: found.mode },
      organizationName: organization.name,
      token,
      tokenHash,
    };
    await next();
  };
}

const loginRequired = () => new DomainError('DASHBOARD_LOGIN_REQUIRED', 'Log in with a login link.');

function mountOverviewAndOrderPages(pages: Router, deps: DashboardDeps, session: Middleware): void {
  pages.get('/', session, async (ctx) => {
    const { deliveries, payments } = await overview(deps.upstreams, scopeOf(ctx), requestId(ctx));
    html(
      ctx,
      overviewPage(
        pageCtx(ctx, 'overview'),
        { hosts: deliveryHostsChart(deliveries), payments: paymentsPerHourChart(payments) },
        twentyFourHoursBefore(deps.clock()),
      ),
    );
  });

  pages.get('/orders', session, async (ctx) => {
    const filters = {
      status: one(ctx.query.status),
      paymentStatus: one(ctx.query.paymentStatus),
      locationId: one(ctx.query.locationId)?.trim(),
      externalId: one(ctx.query.externalId)?.trim(),
    };
    const page = one(ctx.query.page);
    try {
      const list = await deps.upstreams.orders.listOrders(scopeOf(ctx), requestId(ctx), {
        ...filters,
        page,
        limit: '25',
      });
      html(ctx, ordersPage(pageCtx(ctx, 'orders'), list, filters));
    } catch (err) {
      // A filter orders refused (a malformed location id): the list page says so beside the filters.
      if (!isDomainError(err) || !['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'].includes(err.code)) throw err;
      const empty = { orders: [], pagination: { page: 1, limit: 25, hasMore: false } };
      html(ctx, ordersPage(pageCtx(ctx, 'orders'), empty, filters, `Those filters are not valid: ${err.message}`));
    }
  });

  pages.get('/orders/:orderId', session, async (ctx) => {
    const id = idParam('ord', ctx.params.orderId, 'ORDER_NOT_FOUND');
    const { order, payments, refunds, refundable } = await orderView(deps.upstreams, scopeOf(ctx), requestId(ctx), id);
    const message = one(ctx.query.m) === 'refunded' ? 'The refund was made; it is listed below.' : undefined;
    html(ctx, orderPage(pageCtx(ctx, 'orders'), order, payments, { refunds, refundable }, message));
  });
}

/** The Refund form's fields, checked before the confirm page and again when it is sent. */
function refundForm(values: { amount?: string | undefined; reason?: string | undefined }): {
  amount: number | undefined;
  reason: RefundReason | undefined;
} {
  const amount = refundAmountFromForm(values.amount);
  if (amount === null)
    throw new DomainError(
      'REFUND_FAILED',
      'Give the amount to refund like 12.50, or leave it empty to refund all that is refundable.',
    );
  const reason = values.reason === undefined || values.reason === '' ? undefined : values.reason;
  if (reason !== undefined && !(REFUND_REASONS as readonly string[]).includes(reason))
    throw new DomainError('REFUND_FAILED', `The reason must be one of ${REFUND_REASONS.join(', ')}.`);
  return { amount, reason: reason as RefundReason | undefined };
}

/**
 * D48 on the order page (D47): the Refund form leads to a confirm page, whose POST carries the session's CSRF token
 * and a one-time key (a form sent twice makes one refund). The refund goes through orders' one conditional write,
 * and its order to the order's checkout session before the page answers (D46), as an API refund's does.
 */
function mountRefundPages(pages: Router, deps: DashboardDeps, session: Middleware): void {
  pages.get('/orders/:orderId/refund', session, async (ctx) => {
    const id = idParam('ord', ctx.params.orderId, 'ORDER_NOT_FOUND');
    const { amount, reason } = refundForm({ amount: one(ctx.query.amount), reason: one(ctx.query.reason) });
    // Read first, so another organization's id is "not found" here already, not only after confirming.
    const { order } = await deps.upstreams.orders.getOrder(scopeOf(ctx), requestId(ctx), id);
    const what = amount === undefined ? 'all that is refundable' : money(amount, order.currency);
    html(
      ctx,
      confirmPage(
        pageCtx(ctx, 'orders'),
        'Refund this order?',
        `Refund ${what} of order ${id}${reason ? ` (${reason.replace(/_/g, ' ')})` : ''}. The money goes back to the customer; this cannot be undone (D48).`,
        `/dashboard/orders/${id}/refund`,
        {
          ...(amount !== undefined && { amount: String(amount) }),
          ...(reason !== undefined && { reason }),
          key: randomBytes(18).toString('base64url'),
        },
        `/dashboard/orders/${id}`,
        'Yes, refund',
      ),
    );
  });

  pages.post('/orders/:orderId/refund', session, async (ctx) => {
    const form = await verifiedForm(ctx);
    const id = idParam('ord', ctx.params.orderId, 'ORDER_NOT_FOUND');
    const cents = form.get('amount') ?? undefined;
    if (cents !== undefined && !/^[1-9]\d{0,14}$/.test(cents))
      throw new DomainError('REFUND_FAILED', 'The amount to refund is not valid; start again from the order page.');
    const reason = refundForm({ reason: form.get('reason') ?? undefined }).reason;
    const key = form.get('key') ?? '';
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(key))
      throw new DomainError('REFUND_FAILED', 'This form is incomplete; start again from the order page.');
    await refundOrder(deps.upstreams, scopeOf(ctx), requestId(ctx), id, {
      body: { ...(cents !== undefined && { amount: Number(cents) }), ...(reason !== undefined && { reason }) },
      formKey: key,
    });
    ctx.redirect(`/dashboard/orders/${id}?m=refunded`);
    ctx.status = 303;
  });
}

function mountSessionPages(pages: Router, deps: DashboardDeps, session: Middleware): void {
  pages.get('/sessions', session, async (ctx) => {
    const list = await deps.upstreams.sessions.listSessions(scopeOf(ctx), requestId(ctx), {
      page: one(ctx.query.page),
      limit: '25',
    });
    html(ctx, sessionsPage(pageCtx(ctx, 'sessions'), list));
  });

  pages.get('/sessions/:sessionId', session, async (ctx) => {
    const id = idParam('cs', ctx.params.sessionId, 'SESSION_NOT_FOUND');
    const { session: found, history } = await sessionView(deps.upstreams, scopeOf(ctx), requestId(ctx), id);
    html(ctx, sessionPage(pageCtx(ctx, 'sessions'), found, history));
  });
}

function mountEventPages(pages: Router, deps: DashboardDeps, session: Middleware): void {
  pages.get('/events', session, async (ctx) => {
    // D51's filters; the times are datetime-local fields, read as UTC like the recovery's.
    const filters: EventFilters = {
      type: one(ctx.query.type),
      deliveryStatus: one(ctx.query.deliveryStatus),
      endpointId: one(ctx.query.endpointId)?.trim(),
      createdAfter: one(ctx.query.createdAfter),
      createdBefore: one(ctx.query.createdBefore),
    };
    const time = (value: string | undefined) => (value ? (sinceFromForm(value) ?? value) : undefined);
    const recovering = one(ctx.query.recovering);
    const message =
      recovering !== undefined && /^\d+$/.test(recovering)
        ? `Recovery started: ${recovering} failed deliveries will be sent again.`
        : undefined;
    const failed = await deps.upstreams.dispatcher.failedDeliveries(scopeOf(ctx), requestId(ctx));
    try {
      const list = await deps.upstreams.dispatcher.listEvents(scopeOf(ctx), requestId(ctx), {
        ...filters,
        createdAfter: time(filters.createdAfter),
        createdBefore: time(filters.createdBefore),
        page: one(ctx.query.page),
        limit: '25',
      });
      html(ctx, eventsPage(pageCtx(ctx, 'events'), list, failed, filters, message));
    } catch (err) {
      // A filter the dispatcher refused (a malformed endpoint id or time): the page says so beside the filters.
      if (!isDomainError(err) || err.code !== 'INVALID_REQUEST') throw err;
      const empty = { events: [], pagination: { page: 1, limit: 25, hasMore: false } };
      html(
        ctx,
        eventsPage(
          pageCtx(ctx, 'events'),
          empty,
          failed,
          filters,
          message,
          `Those filters are not valid: ${err.message}`,
        ),
      );
    }
  });

  pages.get('/events/:eventId', session, async (ctx) => {
    const id = idParam('evt', ctx.params.eventId, 'EVENT_NOT_FOUND');
    const found = await deps.upstreams.dispatcher.getEvent(scopeOf(ctx), requestId(ctx), id);
    html(
      ctx,
      eventPage(
        pageCtx(ctx, 'events'),
        found,
        one(ctx.query.m) === 'redelivered'
          ? 'A new delivery of this event has started; this page shows its attempts as they happen when you reload it.'
          : undefined,
      ),
    );
  });

  pages.get('/events/:eventId/redeliver', session, async (ctx) => {
    const id = idParam('evt', ctx.params.eventId, 'EVENT_NOT_FOUND');
    // Read first, so another organization's id is "not found" here already, not only after confirming.
    await deps.upstreams.dispatcher.getEvent(scopeOf(ctx), requestId(ctx), id);
    html(
      ctx,
      confirmPage(
        pageCtx(ctx, 'events'),
        'Redeliver this event?',
        `A new delivery of ${id} (same event id, new delivery id) will be sent to its callback URL (D34).`,
        `/dashboard/events/${id}/redeliver`,
        {},
        `/dashboard/events/${id}`,
        'Yes, redeliver',
      ),
    );
  });

  pages.post('/events/:eventId/redeliver', session, async (ctx) => {
    await verifiedForm(ctx);
    const id = idParam('evt', ctx.params.eventId, 'EVENT_NOT_FOUND');
    await deps.upstreams.dispatcher.redeliver(scopeOf(ctx), requestId(ctx), id);
    ctx.redirect(`/dashboard/events/${id}?m=redelivered`);
    ctx.status = 303;
  });
}

function mountRecoveryPages(pages: Router, deps: DashboardDeps, session: Middleware): void {
  pages.get('/recover', session, async (ctx) => {
    const since = sinceFromForm(one(ctx.query.since));
    if (since === undefined) {
      html(
        ctx,
        overviewPage(
          pageCtx(ctx, 'overview'),
          { hosts: '<p><a href="/dashboard">See the charts on the overview.</a></p>', payments: '' },
          twentyFourHoursBefore(deps.clock()),
        ).replace('<h1>Overview</h1>', '<h1>Recover failed deliveries</h1>'),
      );
      return;
    }
    html(
      ctx,
      confirmPage(
        pageCtx(ctx, 'events'),
        'Recover failed deliveries?',
        `Every delivery of this organization and mode that ended failed since ${since} will be sent again, once, as a new delivery (D44).`,
        '/dashboard/recover',
        { since },
        '/dashboard/events',
        'Yes, send them again',
      ),
    );
  });

  pages.post('/recover', session, async (ctx) => {
    const form = await verifiedForm(ctx);
    const since = sinceFromForm(form.get('since') ?? undefined);
    if (since === undefined)
      throw new DomainError('INVALID_REQUEST', 'Give the time to recover from, e.g. 2026-11-24T10:00.');
    const { recovering } = await deps.upstreams.dispatcher.recover(scopeOf(ctx), requestId(ctx), since);
    ctx.redirect(`/dashboard/events?recovering=${recovering}`);
    ctx.status = 303;
  });
}

function logOut(deps: DashboardDeps, secureCookie: boolean): Middleware {
  return async (ctx) => {
    await verifiedForm(ctx);
    const state = ctx.state.dashboard as DashboardState;
    await deps.logins.endSession(state.scope, state.tokenHash);
    ctx.append('Set-Cookie', sessionCookie('', 0, secureCookie));
    ctx.type = 'html';
    ctx.body = messagePage(
      String(ctx.state.nonce),
      'Logged out',
      'Your dashboard session has ended. Open a new login link to come back.',
    );
  };
}

/**
 * D47: the merchant dashboard on the gateway's public listener. `POST /v0/dashboard/login_links` (an API-key
 * route) makes a link; opening it makes a session (a cookie whose token is stored hashed, with the key's
 * organization, mode and key id); every page re-checks that key through the key cache and reads through the
 * owners' internal APIs with the session's scope. Forms that change something carry the session's CSRF token
 * and are reached through a confirm page.
 */
export function dashboardRoutes(deps: DashboardDeps, api: { authenticate: Middleware; body: Middleware }): Router {
  const router = new Router();
  const secureCookie = deps.publicBaseUrl.startsWith('https:');
  router.post('/v0/dashboard/login_links', api.authenticate, api.body, createLoginLink(deps));

  const pages = new Router({ prefix: '/dashboard' });
  pages.use(async (ctx, next) => {
    secure(ctx);
    await next();
  });
  pages.use(htmlErrors(deps.logger));
  pages.get('/login/:token', showLoginLink(deps, secureCookie));
  pages.post('/login/:token', useLoginLink(deps, secureCookie));

  const session = requireSession(deps);
  mountOverviewAndOrderPages(pages, deps, session);
  mountRefundPages(pages, deps, session);
  mountSessionPages(pages, deps, session);
  mountEventPages(pages, deps, session);
  mountRecoveryPages(pages, deps, session);
  mountEndpointPages(
    pages,
    { dispatcher: deps.upstreams.dispatcher, clock: deps.clock, scopeOf, requestId, pageCtx, html, verifiedForm, one },
    session,
  );
  pages.post('/logout', session, logOut(deps, secureCookie));

  router.use(pages.routes(), pages.allowedMethods());
  return router;
}
