import { randomBytes } from 'node:crypto';
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import { isIdOf, Phone, ShippingAddress, type PaymentMethod } from '@checkout/contracts';
import { readUrlEncodedForm } from '@checkout/http';
import type { SessionCommands } from '../domain/sessions.use-cases';
import { scopeOf, type SessionWithOrder } from '../domain/session-transition';
import type { OrdersClient } from '../clients/orders.client';
import type { CollectedInputs } from '../store/session.document';
import { CSRF_COOKIE, csrfToken, newCsrfCookieValue, verifyCsrfToken } from '../domain/csrf';
import { classifyTestCard, last4 } from '../domain/test-processor';
import { acceptsPayments } from '../domain/payment-destination';
import { parseUsdToCents } from './hosted-page/html';
import {
  NOTICES,
  renderMessagePage,
  renderPendingPage,
  renderTerminalPage,
  type NoticeCode,
} from './hosted-page/render';
import { paymentQrSvg } from './hosted-page/payment-qr';

const MAX_FORM_BYTES = 16 * 1024;

export interface HostedPageDeps {
  commands: SessionCommands;
  orders: OrdersClient;
  csrfSecret: string;
  secureCookies: boolean;
}

/** Security headers of every hosted-page response; the CSP allows only this response's nonce. */
function secure(ctx: Context, nonce: string, formTargets: string[] = []): void {
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
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

function notFoundPage(ctx: Context, nonce: string): void {
  secure(ctx, nonce);
  ctx.status = 404;
  ctx.type = 'html';
  ctx.body = renderMessagePage(
    nonce,
    'Checkout not found',
    'We could not find this checkout. Check the link, or return to the merchant to start again.',
  );
}

const loadPublic = async (commands: SessionCommands, id: string | undefined): Promise<SessionWithOrder | null> =>
  isIdOf('cs', id) ? commands.findPublic(id) : null;

/** The double-submit cookie the page's CSRF token is bound to; a fresh one when the browser has none (or a forged one). */
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
    const nonce = randomBytes(16).toString('base64');
    const view = await loadPublic(deps.commands, ctx.params.sessionId);
    if (!view) return notFoundPage(ctx, nonce);
    const session = deps.commands.present(view);
    const cookie = csrfCookieOf(ctx, deps.secureCookies);
    const notice =
      typeof ctx.query.m === 'string' && Object.hasOwn(NOTICES, ctx.query.m) ? (ctx.query.m as NoticeCode) : undefined;
    const locations =
      session.status === 'pending' && session.requireFromCustomer.location
        ? await deps.orders.listLocations(scopeOf(view.doc))
        : [];
    const destination =
      session.status === 'pending' && view.doc.enabledPaymentMethods.includes('stablecoin')
        ? await stablecoinDestination(deps.orders, scopeOf(view.doc), session.order.paymentDestination)
        : undefined;
    const address = destination && destination !== 'unavailable' ? destination.address : undefined;
    const pageCtx = {
      nonce,
      csrfToken: csrfToken(deps.csrfSecret, session.id, cookie),
      organizationName: view.doc.organizationName,
      // A destination that no longer takes payments: no address, no stablecoin form, and a notice saying so.
      enabledPaymentMethods:
        destination === 'unavailable'
          ? view.doc.enabledPaymentMethods.filter((m) => m !== 'stablecoin')
          : view.doc.enabledPaymentMethods,
      destinationUnavailable: destination === 'unavailable',
      collected: view.doc.collected,
      locations,
      notice,
      version: stateVersion(session),
      now: new Date(),
      payment: address ? { address, qrSvg: await paymentQrSvg(address) } : undefined,
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
    const view = await loadPublic(deps.commands, ctx.params.sessionId);
    secure(ctx, randomBytes(8).toString('base64'));
    if (!view) throw new DomainError('SESSION_NOT_FOUND', 'No such checkout session.');
    const session = deps.commands.present(view);
    const { total, paid } = session.order.amounts;
    ctx.body = {
      status: session.status,
      amounts: { total, paid, due: Math.max(0, total - paid) },
      failedAttempts: session.failedAttempts,
      version: stateVersion(session),
    };
  };
}

type SimulatedAttempt = Parameters<SessionCommands['pay']>[2];

/** The test processor's attempt the form asks for, or the notice that sends the customer back to fix the form. */
function simulatedAttempt(method: PaymentMethod, form: URLSearchParams): SimulatedAttempt | NoticeCode {
  if (method === 'card') {
    const number = form.get('cardNumber') ?? '';
    if (number.trim() === '') return 'card_required';
    const outcome = classifyTestCard(number);
    // The full number is never stored or logged: only its last four digits go further.
    if (outcome === 'not_test_card') return 'not_test_card';
    return { source: 'simulator', method, outcome, cardLast4: last4(number) };
  }
  if (method === 'stablecoin') {
    const cents = parseUsdToCents(form.get('amount') ?? '');
    if (cents === null || cents < 1) return 'amount';
    return { source: 'simulator', method, outcome: 'succeeded', amount: cents };
  }
  return { source: 'simulator', method, outcome: 'succeeded' };
}

function pay(deps: HostedPageDeps): RouterMiddleware {
  return async (ctx) => {
    const nonce = randomBytes(16).toString('base64');
    const id = ctx.params.sessionId;
    if (!isIdOf('cs', id)) return notFoundPage(ctx, nonce);
    const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
    if (!verifyCsrfToken(deps.csrfSecret, id, ctx.cookies.get(CSRF_COOKIE), form.get('csrf') ?? undefined)) {
      secure(ctx, nonce);
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = renderMessagePage(
        nonce,
        'Please try again',
        'This form has expired. Reload the page and submit it again.',
      );
      return;
    }
    const view = await deps.commands.findPublic(id);
    if (!view) return notFoundPage(ctx, nonce);
    const back = (notice?: NoticeCode) => {
      secure(ctx, nonce);
      ctx.status = 303;
      ctx.redirect(`/checkout/${id}${notice ? `?m=${notice}` : ''}`);
    };
    const session = deps.commands.present(view);
    if (session.status !== 'pending' || view.doc.mode !== 'test') return back();

    const method = form.get('method') as PaymentMethod | null;
    if (!method || !view.doc.enabledPaymentMethods.includes(method)) return back('method');
    // A page rendered before the destination was deactivated (or a forged form) may still post stablecoin.
    if (
      method === 'stablecoin' &&
      (await stablecoinDestination(deps.orders, scopeOf(view.doc), session.order.paymentDestination)) === 'unavailable'
    ) {
      return back('destination_unavailable');
    }

    // requireFromCustomer: collected and stored before any payment is attempted (D26).
    const collected = collectInputs(form, session.requireFromCustomer);
    if (collected === null) return back('required');
    if (session.requireFromCustomer.location) {
      const locations = await deps.orders.listLocations(scopeOf(view.doc));
      if (!locations.some((l) => l.id === collected.locationId)) return back('required');
    }

    const attempt = simulatedAttempt(method, form);
    if (typeof attempt === 'string') return back(attempt);

    try {
      // The session as last read or written here goes into pay(), which then reads it no more.
      const current =
        Object.keys(collected).length > 0 ? (await deps.commands.collectInputs(id, collected)).doc : view.doc;
      const { view: after, result } = await deps.commands.pay(scopeOf(view.doc), id, attempt, current);
      if (result === 'declined') return back('declined');
      const now = deps.commands.present(after);
      if (now.status === 'completed') {
        // Flow 3: the completed event is already on Kafka (pay() published it) before the customer moves on.
        if (now.successUrl) {
          secure(ctx, nonce, originOf(now.successUrl));
          ctx.status = 303;
          ctx.redirect(now.successUrl);
          return;
        }
        return back();
      }
      return back('paid_partial');
    } catch (err) {
      if (isDomainError(err) && (err.code === 'SESSION_NOT_PAYABLE' || err.code === 'ORDER_NOT_EDITABLE'))
        return back('not_payable');
      throw err;
    }
  };
}

/**
 * The hosted payment page (D26, D41): public, server-rendered, one page per session id (the unguessable id is
 * the capability). Forms carry a double-submit CSRF token; the page polls /state and swaps in its new content on change, without a reload.
 */
export function hostedPageRoutes(deps: HostedPageDeps): Router {
  const router = new Router({ prefix: '/checkout' });
  router.get('/:sessionId', showPage(deps));
  router.get('/:sessionId/state', pageState(deps));
  router.post('/:sessionId/pay', pay(deps));
  return router;
}

/**
 * Where the order's stablecoin payments go: the destination it names (an address or the id of a registered one,
 * D15) while orders' rule still holds, 'unavailable' once it does not (deactivated, deleted, unverified:
 * the page used to show it regardless), or undefined when the order names none. Only that one destination is read.
 */
async function stablecoinDestination(
  orders: OrdersClient,
  scope: ReturnType<typeof scopeOf>,
  named: string | null | undefined,
): Promise<{ address: string } | 'unavailable' | undefined> {
  if (!named) return undefined;
  const destination = await orders.findPaymentDestination(scope, named);
  return destination && acceptsPayments(destination) ? { address: destination.address } : 'unavailable';
}

/** The inputs requireFromCustomer asks for, validated; null when one is missing or invalid. */
function collectInputs(
  form: URLSearchParams,
  req: { phone: boolean; shippingAddress: boolean; location: boolean },
): CollectedInputs | null {
  const out: CollectedInputs = {};
  const text = (name: string) => {
    const v = (form.get(name) ?? '').trim();
    return v === '' ? undefined : v;
  };
  if (req.phone) {
    const phone = Phone.safeParse(text('phone') ?? '');
    if (!phone.success) return null;
    out.phone = phone.data;
  }
  if (req.shippingAddress) {
    const raw = {
      name: text('shipName'),
      line1: text('line1'),
      line2: text('line2'),
      city: text('city'),
      state: text('state'),
      postalCode: text('postalCode'),
      country: text('country')?.toUpperCase(),
    };
    const address = ShippingAddress.safeParse(
      Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)),
    );
    if (!address.success) return null;
    out.shippingAddress = address.data;
  }
  if (req.location) {
    const locationId = text('locationId');
    if (!locationId) return null;
    out.locationId = locationId;
  }
  return out;
}
