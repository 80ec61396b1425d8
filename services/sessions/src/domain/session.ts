import { DomainError } from '@checkout/errors';
import {
  SESSION_DATA_MAX_BYTES,
  SESSION_DATA_MAX_KEYS,
  SESSION_MAX_LIFETIME_MS,
  computeAmounts,
  serializedSize,
  type JsonValue,
  type OrderStatus,
  type SessionStatus,
} from '@checkout/contracts';

// Pure session rules (D21–D25). No I/O: the use cases hand in the session's copy of its order and the clock.

const MINUTE_MS = 60_000;

/** D22: `{SESSION_ID}` and `{ORDER_ID}` are replaced everywhere; any other braces stay as written. */
export function substitutePlaceholders(url: string, ids: { sessionId: string; orderId: string }): string {
  return url.replaceAll('{SESSION_ID}', ids.sessionId).replaceAll('{ORDER_ID}', ids.orderId);
}

/** D22: the request's callbackUrl, else the organization's default, else null; placeholders substituted. */
export function resolveCallbackUrl(
  requested: string | undefined,
  orgDefault: string | null,
  ids: { sessionId: string; orderId: string },
): string | null {
  const chosen = requested ?? orgDefault;
  return chosen === null || chosen === undefined ? null : substitutePlaceholders(chosen, ids);
}

export function expiresAtFor(now: Date, minutes: number): Date {
  return new Date(now.getTime() + minutes * MINUTE_MS);
}

/** D21: exact expiry. At or after expiresAt a session is due, whether or not the sweeper has run. */
export function isDue(expiresAt: Date, now: Date): boolean {
  return now.getTime() >= expiresAt.getTime();
}

/**
 * The status a read shows (D21, D25). A stored terminal status is final. A stored `pending` session shows what
 * its order and the clock say: the order's completion or cancellation wins (those are facts in orders), then
 * exact expiry. So no read at or after expiresAt shows `pending`, even before the sweeper has written it.
 */
export function effectiveStatus(
  stored: SessionStatus,
  orderStatus: OrderStatus,
  expiresAt: Date,
  now: Date,
): SessionStatus {
  if (stored !== 'pending') return stored;
  if (orderStatus === 'completed') return 'completed';
  if (orderStatus === 'cancelled') return 'cancelled';
  if (isDue(expiresAt, now)) return 'expired';
  return 'pending';
}

/**
 * The status a stored `pending` session owes at `at` (D21, D25, D28): what effectiveStatus shows, for a writer to
 * store; null when nothing is owed (still pending, or already settled). completed and expired fire an event
 * (SESSION_EVENT_TYPES), cancelled none.
 */
export function owedStatus(
  stored: SessionStatus,
  orderStatus: OrderStatus,
  expiresAt: Date,
  at: Date,
): Exclude<SessionStatus, 'pending'> | null {
  if (stored !== 'pending') return null;
  const next = effectiveStatus(stored, orderStatus, expiresAt, at);
  return next === 'pending' ? null : next;
}

/** D23: extendExpiry adds minutes while pending; the whole lifetime may not exceed 7 days. */
export function extendedExpiry(
  current: { status: SessionStatus; createdAt: Date; expiresAt: Date },
  minutes: number,
): Date {
  if (current.status !== 'pending') {
    throw new DomainError(
      'SESSION_UPDATE_FAILED',
      `The session is ${current.status}; only a pending session can be extended.`,
      {
        details: [{ path: 'extendExpiry', message: `session is ${current.status}` }],
      },
    );
  }
  const next = new Date(current.expiresAt.getTime() + minutes * MINUTE_MS);
  if (next.getTime() - current.createdAt.getTime() > SESSION_MAX_LIFETIME_MS) {
    throw new DomainError('SESSION_UPDATE_FAILED', 'A session may live at most 7 days from its creation.', {
      details: [{ path: 'extendExpiry', message: 'the session lifetime would exceed 7 days' }],
    });
  }
  return next;
}

export type SessionDataRecord = Record<string, JsonValue>;

/** Parses stored sessionData JSON into an object whose "__proto__"-like keys stay plain data. */
export function readSessionData(json: string): SessionDataRecord {
  const parsed = JSON.parse(json) as SessionDataRecord;
  const out: SessionDataRecord = {};
  for (const [k, v] of Object.entries(parsed))
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** D23: shallow merge; the merged object obeys the same limits as a request (50 keys, 8 KiB). */
export function mergeSessionData(currentJson: string, patch: SessionDataRecord): string {
  const merged = readSessionData(currentJson);
  for (const [k, v] of Object.entries(patch))
    Object.defineProperty(merged, k, { value: v, enumerable: true, writable: true, configurable: true });
  if (Object.keys(merged).length > SESSION_DATA_MAX_KEYS) {
    throw new DomainError(
      'SESSION_UPDATE_FAILED',
      `sessionData may hold at most ${SESSION_DATA_MAX_KEYS} keys after merging.`,
      {
        details: [{ path: 'sessionData', message: `more than ${SESSION_DATA_MAX_KEYS} keys after merge` }],
      },
    );
  }
  if (serializedSize(merged) > SESSION_DATA_MAX_BYTES) {
    throw new DomainError(
      'SESSION_UPDATE_FAILED',
      `sessionData may be at most ${SESSION_DATA_MAX_BYTES} bytes after merging.`,
      {
        details: [{ path: 'sessionData', message: `larger than ${SESSION_DATA_MAX_BYTES} bytes after merge` }],
      },
    );
  }
  return JSON.stringify(merged);
}

/**
 * D17 total of a create request, priced by orders' own rule (computeAmounts, libs/contracts), so a session
 * whose total would be 0 is refused (D24) before an order (and its externalId) is created. null when orders
 * would reject the amounts anyway (a discount above the subtotal, an amount past D10's ceiling): then orders'
 * own error is the answer.
 */
export function expectedTotal(input: {
  items: readonly { quantity: number; unitPrice: number }[];
  taxes?: readonly { amount: number }[] | undefined;
  discounts?: readonly { type: 'fixed' | 'percentage'; amount: number }[] | undefined;
}): number | null {
  const priced = computeAmounts({
    items: input.items,
    taxes: input.taxes ?? [],
    discounts: input.discounts ?? [],
    paid: 0,
  });
  return priced.ok ? priced.amounts.total : null;
}
