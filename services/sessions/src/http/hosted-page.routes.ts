import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { amountDue, isIdOf, type PageLocale } from '@checkout/contracts';
import { newNonce, pageHeaders } from '@checkout/html';
import { readUrlEncodedForm } from '@checkout/http';
import type { HostedPage } from '../domain/hosted-page';
import type { NoticeCode } from '../domain/payment-methods';
import { CSRF_COOKIE, csrfToken, newCsrfCookieValue, verifyCsrfToken } from '../domain/csrf';
import { renderMessagePage, renderPendingPage, renderTerminalPage } from './hosted-page/render';
import { NOTICES } from './hosted-page/page-context';
import { paymentQrSvg } from './hosted-page/payment-qr';
import { shownName } from './hosted-page/brand';
import { pageLocaleOf } from './hosted-page/i18n/negotiate';
import { pageText, type PageText } from './hosted-page/i18n/page-text';

const MAX_FORM_BYTES = 16 * 1024;

export interface HostedPageDeps {
  page: HostedPage;
  csrfSecret: string;
  secureCookies: boolean;
}

/** Security headers of every hosted-page response: its own script and fetches, forms to `formTargets` too. */
function secure(ctx: Context, nonce: string, formTargets: string[] = []): void {
  ctx.set(pageHeaders({ nonce, script: true, formTargets, images: 'https' }));
}

function stateVersion(view: {
  status: string;
  order: { amounts: { paid: number }; updatedAt: string };
  failedAttempts: number;
}): string {
  return `${view.status}|${view.order.amounts.paid}|${view.failedAttempts}|${view.order.updatedAt}`;
}

function originOf(url: string | null): string[] {
  if (!url) return [];
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
}

/**
 * The words of a page in `locale`, or in the browser's language when the page's session says `auto` or there is
 * none: then the answer depends on Accept-Language, and says so to caches.
 */
function textFor(ctx: Context, locale?: PageLocale | 'auto'): PageText {
  const chosen = pageLocaleOf(locale ?? 'auto', ctx.get('Accept-Language') || undefined);
  if (chosen.negotiated) ctx.vary('Accept-Language');
  ctx.set('Content-Language', chosen.locale);
  return pageText(chosen.locale);
}

function messagePage(ctx: Context, nonce: string, status: number, message: 'notFound' | 'formExpired'): void {
  secure(ctx, nonce);
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = renderMessagePage(nonce, textFor(ctx), message);
}

const notFoundPage = (ctx: Context, nonce: string) => messagePage(ctx, nonce, 404, 'notFound');

/** The double-submit cookie the page's CSRF token is bound to; a fresh one when the browser has none (or forged). */
function csrfCookieOf(ctx: Context, secureCookies: boolean): string {
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  if (cookie && /^[A-Za-z0-9_-]{16,64}$/.test(cookie)) return cookie;
  const fresh = newCsrfCookieValue();
  ctx.append(
    'Set-Cookie',
    `${CSRF_COOKIE}=${fresh}; Path=/checkout; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`,
  );
  return fresh;
}

function showPage(deps: HostedPageDeps): RouterMiddleware {
  return async (ctx) => {
    const nonce = newNonce();
    const id = ctx.params.sessionId;
    const view = isIdOf('cs', id) ? await deps.page.view(id) : null;
    if (!view) return notFoundPage(ctx, nonce);
    const { session } = view;
    const cookie = csrfCookieOf(ctx, deps.secureCookies);
    const notice =
      typeof ctx.query.m === 'string' && Object.hasOwn(NOTICES, ctx.query.m) ? (ctx.query.m as NoticeCode) : undefined;
    const text = textFor(ctx, session.locale);
    const pageCtx = {
      nonce,
      text,
      csrfToken: csrfToken(deps.csrfSecret, session.id, cookie),
      organizationName: shownName(view.doc.organizationName, view.doc.brand),
      brand: view.doc.brand,
      methods: view.methods,
      destinationUnavailable: view.destinationUnavailable,
      collected: view.doc.collected,
      locations: view.locations,
      notice,
      version: stateVersion(session),
      now: new Date(),
      payment: view.payTo
        ? { address: view.payTo, qrSvg: await paymentQrSvg(view.payTo, text.t('qrLabel')) }
        : undefined,
    };
    // The submitting page's own CSP governs where its form may end up, redirects included (Chromium), so the
    // successUrl's origin is allowed here.
    secure(ctx, nonce, originOf(session.successUrl));
    ctx.type = 'html';
    ctx.body =
      session.status === 'pending' ? renderPendingPage(session, pageCtx) : renderTerminalPage(session, pageCtx);
  };
}

function pageState(deps: HostedPageDeps): RouterMiddleware {
  return async (ctx) => {
    const id = ctx.params.sessionId;
    const session = isIdOf('cs', id) ? await deps.page.state(id) : null;
    secure(ctx, newNonce(8));
    if (!session) throw new DomainError('SESSION_NOT_FOUND', 'No such checkout session.');
    const { total, paid } = session.order.amounts;
    ctx.body = {
      status: session.status,
      amounts: { total, paid, due: amountDue(session.order.amounts) },
      failedAttempts: session.failedAttempts,
      version: stateVersion(session),
    };
  };
}

function pay(deps: HostedPageDeps): RouterMiddleware {
  return async (ctx) => {
    const nonce = newNonce();
    const id = ctx.params.sessionId;
    if (!isIdOf('cs', id)) return notFoundPage(ctx, nonce);
    const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
    if (!verifyCsrfToken(deps.csrfSecret, id, ctx.cookies.get(CSRF_COOKIE), form.get('csrf') ?? undefined))
      return messagePage(ctx, nonce, 403, 'formExpired');
    const outcome = await deps.page.pay(id, form);
    if (outcome.kind === 'not_found') return notFoundPage(ctx, nonce);
    const to =
      outcome.kind === 'paid' ? outcome.successUrl : `/checkout/${id}${outcome.notice ? `?m=${outcome.notice}` : ''}`;
    secure(ctx, nonce, outcome.kind === 'paid' ? originOf(to) : []);
    ctx.status = 303;
    ctx.redirect(to);
  };
}

/**
 * The hosted payment page (D26, D41): public, server-rendered, one page per session id (the unguessable id is
 * the capability). Forms carry a double-submit CSRF token; the page polls /state and swaps in its new content on
 * change, without a reload.
 */
export function hostedPageRoutes(deps: HostedPageDeps): Router {
  const router = new Router({ prefix: '/checkout' });
  router.get('/:sessionId', showPage(deps));
  router.get('/:sessionId/state', pageState(deps));
  router.post('/:sessionId/pay', pay(deps));
  return router;
}
