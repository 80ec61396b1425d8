import type Router from '@koa/router';
import { LRUCache } from 'lru-cache';
import type { Context, Middleware, Next } from 'koa';
import { DomainError } from '@checkout/errors';
import { readUrlEncodedForm } from '@checkout/http';
import type { LoginLinkResponse } from '@checkout/contracts';
import * as tokens from '../../domain/dashboard-tokens';
import { loginPage, messagePage } from './layout';
import { MAX_FORM_BYTES, respond, seeOther, verifiedForm, type DashboardDeps, type DashboardState } from './kit';

// D47's way in and out: the login link an API key makes, its page and button, the session every other page
// needs, and Log out.

const DASHBOARD_COOKIE = 'checkout_dashboard';

/**
 * The browser that opened a login link's page holds this cookie (a random nonce, 5 minutes, sent only to the
 * login route); the page's form carries loginProofFor(nonce, link). It opens nothing by itself.
 */
const LOGIN_NONCE_COOKIE = 'checkout_dashboard_login';

function cookieLine(
  name: string,
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  const secure = options.secure ? '; Secure' : '';
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean): string =>
  cookieLine(DASHBOARD_COOKIE, token, { path: '/dashboard', maxAgeSeconds, secure });

const linkInvalid = () =>
  new DomainError('LOGIN_LINK_INVALID', 'This login link was used, has expired, or does not exist.');

const loginRequired = () => new DomainError('DASHBOARD_LOGIN_REQUIRED', 'Log in with a login link.');

/** `POST /v0/dashboard/login_links`, an API-key route: a link to the key's organization and mode. */
export function createLoginLink(deps: DashboardDeps): Middleware {
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
    const hash = tokens.isTokenShaped(token) ? tokens.hashToken(token) : undefined;
    const link = hash ? await deps.logins.usableLink(hash) : null;
    const organization = link ? await deps.keys.activeOrganization(link.keyLookupId) : null;
    if (!link || !hash || !organization) throw linkInvalid();
    const nonce = tokens.newToken();
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
    respond(
      ctx,
      loginPage(String(ctx.state.nonce), {
        organizationName: organization.name,
        mode: link.mode,
        action: `/dashboard/login/${token}`,
        proof: tokens.loginProofFor(nonce, hash),
      }),
    );
  };
}

/** The login form came from the page this browser opened (its nonce cookie, its proof, same origin). */
function fromOpeningBrowser(ctx: Context, hash: string, form: URLSearchParams): boolean {
  const fetchSite = ctx.get('sec-fetch-site');
  const nonce = ctx.cookies.get(LOGIN_NONCE_COOKIE);
  return (
    (fetchSite === '' || fetchSite === 'same-origin') &&
    tokens.isTokenShaped(nonce) &&
    tokens.loginProofMatches(nonce, hash, form.get('proof') ?? undefined)
  );
}

// The button: checks that this browser opened the page (before the link is used, so a forged POST burns
// nothing), uses the link with one conditional update, starts the session and moves on to /dashboard with a
// 303 (the POST came from our own page, so the new SameSite=Strict cookie goes with that navigation).
function useLoginLink(deps: DashboardDeps, secureCookie: boolean): Middleware {
  return async (ctx) => {
    const { token } = ctx.params as { token?: string };
    if (!tokens.isTokenShaped(token)) throw linkInvalid();
    const hash = tokens.hashToken(token);
    const form = await readUrlEncodedForm(ctx, MAX_FORM_BYTES);
    if (!fromOpeningBrowser(ctx, hash, form))
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
    seeOther(ctx, '/dashboard');
  };
}

/** The login link's page and button; no session is needed for either. */
export function mountLogin(pages: Router, deps: DashboardDeps, secureCookie: boolean): void {
  pages.get('/login/:token', showLoginLink(deps, secureCookie));
  pages.post('/login/:token', useLoginLink(deps, secureCookie));
}

/**
 * Every page but the login link needs a live session whose API key is still active: revoking the key ends the
 * session. Each page counts against that key's rate limit (D43), as an API request does: the dashboard is no
 * way around it (its overview asks two owners to sum a week of payments and a day of attempts). A cookie that
 * matches no session is remembered as unknown for a while (a bounded cache in this replica), so repeating one
 * costs no database read; a session started meanwhile has a new random token, never looked up before, so the
 * cache cannot refuse it, on this replica or any other.
 */
export function requireSession(deps: DashboardDeps): Middleware {
  const unknown = new LRUCache<string, true>({ max: 10_000, ttl: Math.max(deps.unknownSessionCacheMs, 1) });
  return async (ctx: Context, next: Next) => {
    const token = ctx.cookies.get(DASHBOARD_COOKIE);
    if (!tokens.isTokenShaped(token)) throw loginRequired();
    const tokenHash = tokens.hashToken(token);
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

/** Log out: the session is deleted and its cookie cleared. */
export function mountLogout(pages: Router, deps: DashboardDeps, session: Middleware, secureCookie: boolean): void {
  pages.post('/logout', session, async (ctx) => {
    await verifiedForm(ctx);
    const state = ctx.state.dashboard as DashboardState;
    await deps.logins.endSession(state.scope, state.tokenHash);
    ctx.append('Set-Cookie', sessionCookie('', 0, secureCookie));
    respond(
      ctx,
      messagePage(
        String(ctx.state.nonce),
        'Logged out',
        'Your dashboard session has ended. Open a new login link to come back.',
      ),
    );
  });
}
