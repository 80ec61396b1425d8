import type { Logger } from '@checkout/logger';
import { DomainError, isDomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { newId, secretlyDerivedId, type CheckoutSettingsHeader, type CreateSessionRequest } from '@checkout/contracts';
import type { Orders, Sessions } from './ports';
import type { SessionDocument } from '../store/session.document';
import { expectedTotal, expiresAtFor, resolveCallbackUrl, substitutePlaceholders } from './session';
import { copyFields, type SessionWithOrder } from './session-writes';
import { brandOfNewSession, localeOfNewSession } from './checkout-settings';

export interface CreateSessionDeps {
  store: Sessions;
  orders: Orders;
  clock: () => Date;
  logger: Logger;
  /** ID_DERIVATION_SECRET: ids derived from an Idempotency-Key are computable only with it. */
  idSecret: string;
}

/**
 * Flow 2, creating a checkout session.
 *
 * 1. Pick the session id first: it is the Idempotency-Key of the order create, so a retried call to orders
 *    (a timeout, a 503) gets the same order back instead of making a second one. When the merchant sent an
 *    Idempotency-Key (D42, `requestKey`), the id is derived from it: a retry after an unknown outcome (this
 *    process died, or the database went, between the order and the session) gets the same order back from orders
 *    and finishes the session, instead of a 409 for an externalId its own first try used up.
 * 2. Refuse a total below 1 (D24) before anything exists, so a refused request leaves no order (and does not
 *    use up its externalId).
 * 3. Create the order. Orders decides references and uniqueness; its errors keep their codes, except its
 *    generic ORDER_CREATE_FAILED, which is this endpoint's SESSION_CREATION_FAILED.
 *    (Backstop for step 2: should orders price the order below 1 after all, cancel it and refuse.)
 * 4. Insert the session, with its URLs' placeholders substituted, the checkout settings snapshotted and its copy
 *    of the order taken from orders' answer (reads present that copy; they never call orders).
 *    Undo: if the insert fails, cancel the order just created, so no live orphan is left behind; unless the
 *    request has a key, whose retry will finish it (a session found under the derived id is the first try's).
 */
export async function createSession(
  deps: CreateSessionDeps,
  scope: Scope,
  input: CreateSessionRequest,
  settings: CheckoutSettingsHeader,
  requestKey?: string,
): Promise<SessionWithOrder> {
  const sessionId =
    requestKey === undefined
      ? newId('cs', scope.mode)
      : secretlyDerivedId('cs', scope.mode, deps.idSecret, `session\n${scope.organizationId}\n${requestKey}`);

  const total = expectedTotal(input);
  if (total !== null && total < 1) throw totalTooLow();

  const { expiresInMinutes, successUrl, callbackUrl, requireFromCustomer, locale, ...orderInput } = input;
  let created;
  try {
    created = await deps.orders.create(scope, orderInput, sessionId);
  } catch (err) {
    throw asSessionError(err);
  }
  const { order } = created;

  if (order.amounts.total < 1) {
    await deps.orders
      .cancel(scope, order.id)
      .catch((err: unknown) =>
        deps.logger.error({ err, orderId: order.id }, 'could not cancel the order of a refused session'),
      );
    throw totalTooLow();
  }

  const now = deps.clock();
  const ids = { sessionId, orderId: order.id };
  const doc: Omit<SessionDocument, 'organizationId' | 'mode'> = {
    _id: sessionId,
    orderId: order.id,
    status: 'pending',
    successUrl: successUrl === undefined ? null : substitutePlaceholders(successUrl, ids),
    callbackUrl: resolveCallbackUrl(callbackUrl, settings.defaultCallbackUrl, ids),
    expiresAt: expiresAtFor(now, expiresInMinutes),
    failedAttempts: 0,
    requireFromCustomer,
    locale: localeOfNewSession(locale, settings),
    sessionDataJson: '{}',
    organizationName: settings.organizationName,
    enabledPaymentMethods: settings.enabledPaymentMethods,
    ...withBrand(settings),
    collected: {},
    ...copyFields(created),
    outbox: [],
    outboxPending: false,
    createdAt: now,
    updatedAt: now,
  };
  try {
    const { created, doc: stored } = await deps.store.insertSession(scope, doc);
    // Its id taken: with a key, by the first try, whose session is the answer (a random id is never taken).
    if (stored && (created || requestKey !== undefined)) return { doc: stored, order };
    throw new Error(`session ${sessionId}: its id is taken`);
  } catch (err) {
    if (requestKey !== undefined) {
      deps.logger.warn(
        { err, orderId: order.id, sessionId },
        'session not stored; a retry with the same Idempotency-Key finishes it',
      );
      throw err;
    }
    await deps.orders.cancel(scope, order.id).catch((cancelErr: unknown) => {
      // Still open and unpaid; nobody knows its id, so it can never be paid. Logged for an operator.
      deps.logger.error(
        { err: cancelErr, orderId: order.id },
        'compensation failed: order of an unsaved session is still open',
      );
    });
    throw err;
  }
}

function withBrand(settings: CheckoutSettingsHeader): Pick<SessionDocument, 'brand'> {
  const brand = brandOfNewSession(settings);
  return brand ? { brand } : {};
}

function totalTooLow(): DomainError {
  return new DomainError('SESSION_CREATION_FAILED', 'A checkout session needs an order total of at least 1.', {
    details: [{ path: 'items', message: 'the order total must be at least 1 (D24)' }],
  });
}

/** Orders' codes as this endpoint's codes (spec, checkout session errors). */
function asSessionError(err: unknown): unknown {
  if (!isDomainError(err)) return err;
  if (err.code === 'ORDER_CREATE_FAILED') {
    return new DomainError('SESSION_CREATION_FAILED', err.message, err.details ? { details: err.details } : {});
  }
  return err;
}
