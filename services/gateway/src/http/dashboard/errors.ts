import type { Context, Middleware } from 'koa';
import { DependencyUnavailableError, isDomainError, type DomainError } from '@checkout/errors';
import { isInfrastructureUnavailable } from '@checkout/http';
import type { Logger } from '@checkout/logger';
import { messagePage } from './layout';
import { secure } from './kit';

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
  'BALANCE_TRANSACTION_NOT_FOUND',
  'REPORT_NOT_FOUND',
  'INVALID_REPORT_ID',
  'NOT_FOUND',
]);

interface ErrorPage {
  title: string;
  message: string;
  link?: { href: string; label: string } | undefined;
}

const BACK = { href: '/dashboard', label: 'Back to the dashboard' };

/** The page of a domain error; its status is the one libs/errors maps the code to. */
function domainErrorPage(ctx: Context, err: DomainError): ErrorPage {
  ctx.status = err.status;
  switch (err.code) {
    case 'LOGIN_LINK_INVALID':
      return {
        title: 'This login link cannot be used',
        message:
          'Login links work once, for 5 minutes. This one has been used already, has expired, or does not exist. ' +
          'Create a new one with your secret key (npm run cli -- dashboard, or POST /v0/dashboard/login_links).',
      };
    case 'DASHBOARD_LOGIN_REQUIRED':
      return {
        title: 'Please log in',
        message:
          'Your dashboard session has ended (it lasts 12 hours, and ends when its API key is revoked or you log ' +
          'out). Open a new login link to continue.',
      };
    case 'RATE_LIMITED':
      if (err.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.retryAfterSeconds));
      return {
        title: 'Too many requests',
        message:
          "This API key's requests, the dashboard's included, are over its rate limit. " +
          `Reload the page in ${err.retryAfterSeconds ?? 1} s.`,
        link: BACK,
      };
    case 'QUOTA_EXCEEDED':
      if (err.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.retryAfterSeconds));
      return { title: 'Daily budget used up', message: err.message, link: BACK };
    case 'CSRF_TOKEN_INVALID':
      return {
        title: 'Please try again',
        message: 'This form could not be verified. Go back, reload the page and submit it again.',
        link: BACK,
      };
    default:
      return NOT_FOUND_CODES.has(err.code)
        ? { title: 'Not found', message: 'There is nothing with this id in this organization and mode.', link: BACK }
        : { title: 'That did not work', message: err.message, link: BACK };
  }
}

/**
 * Errors on dashboard pages are pages, not JSON. The status is still the one libs/errors maps the code to (so
 * no route here sets a 4xx); only the body differs. A used, expired or unknown link says so plainly; another
 * organization's id is the same "not found" as an unknown one (D4).
 */
export function htmlErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const nonce = ctx.state.nonce ?? secure(ctx);
      let page: ErrorPage;
      if (isDomainError(err)) page = domainErrorPage(ctx, err);
      else if (err instanceof DependencyUnavailableError || isInfrastructureUnavailable(err)) {
        ctx.status = 503;
        ctx.set('Retry-After', '1');
        logger.warn(
          { err: err instanceof Error ? { name: err.name, message: err.message } : String(err) },
          'dashboard dependency unavailable',
        );
        page = {
          title: 'Temporarily unavailable',
          message: 'A service behind the dashboard did not answer. Reload the page in a moment.',
          link: BACK,
        };
      } else throw err;
      ctx.type = 'html';
      ctx.body = messagePage(nonce, page.title, page.message, page.link);
    }
  };
}
