import { createHash, createHmac, randomInt } from 'node:crypto';
import { z } from 'zod';

export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];
export const ModeSchema = z.enum(MODES).describe('API mode: decided by the API key, never by the caller.');

/**
 * The tenant every request, document and message belongs to (D3: test and live fully isolated). The one
 * declaration: libs/mongo and libs/http name this type, never another.
 */
export interface Scope {
  organizationId: string;
  mode: Mode;
}

// D3: records that belong to a mode carry the mode word in their id, so a test id can never be mistaken for a
// live one, even in logs.
export const ID_PREFIXES = {
  order: 'ord',
  session: 'cs',
  customer: 'cust',
  location: 'loc',
  event: 'evt',
  paymentDestination: 'pd',
  delivery: 'dlv',
  payment: 'pay',
  refund: 're',
  webhookEndpoint: 'we',
  report: 'rpt',
  /** D52: a balance transaction, its suffix derived from the movement it records (one line per movement). */
  balanceTransaction: 'txn',
} as const;
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

// D3: line ids live inside an order that already carries the mode, so they have no mode word.
export const LINE_ID_PREFIXES = {
  item: 'item',
  tax: 'tax',
  discount: 'disc',
} as const;
export type LineIdPrefix = (typeof LINE_ID_PREFIXES)[keyof typeof LINE_ID_PREFIXES];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_SUFFIX_LENGTH = 24;
// D4 accepts longer suffixes than we generate, so ids minted by an earlier scheme keep resolving.
/** The longest suffix an id may have (what the pattern accepts; ours are 24 characters). */
export const ID_SUFFIX_MAX = 64;
const SUFFIX_PATTERN = `[0-9A-Za-z]{1,${ID_SUFFIX_MAX}}`;

/** The longest id of a prefix, in either mode: the pattern's own bound, stated as maxLength in the document. */
export function idMaxLength(prefix: string): number {
  return `${prefix}_live_`.length + ID_SUFFIX_MAX;
}

// randomInt rejects out-of-range draws internally, so every character is uniform (no modulo bias); 24 draws
// from 62 symbols give ~143 bits, which makes ids unguessable as well as unique.
function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < ID_SUFFIX_LENGTH; i += 1) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function newId(prefix: IdPrefix, mode: Mode): string {
  return `${prefix}_${mode}_${randomSuffix()}`;
}

/**
 * An id derived from `seed` instead of drawn at random: the same seed gives the same id, so racing writers
 * that insert it meet on the unique _id. Its suffix is a SHA-256 of the seed, as unguessable as the seed; with
 * `secret`, an HMAC-SHA256 under it, which only a holder of the secret can compute.
 */
export function derivedId(prefix: IdPrefix, mode: Mode, seed: string, secret?: string): string {
  const digest = (secret === undefined ? createHash('sha256') : createHmac('sha256', secret)).update(seed).digest();
  let out = '';
  for (let i = 0; i < ID_SUFFIX_LENGTH; i += 1) out += ALPHABET[(digest[i] as number) % ALPHABET.length];
  return `${prefix}_${mode}_${out}`;
}

/**
 * derivedId under a server secret: the same seed still gives the same id, but only a holder of the secret can
 * compute it. For ids that are capabilities, such as a checkout session's (its hosted page URL): a seed made of an
 * organization and an Idempotency-Key is no secret.
 */
export function secretlyDerivedId(prefix: IdPrefix, mode: Mode, secret: string, seed: string): string {
  return derivedId(prefix, mode, seed, secret);
}

export function newLineId(prefix: LineIdPrefix): string {
  return `${prefix}_${randomSuffix()}`;
}

const patternCache = new Map<string, RegExp>();
function idPattern(prefix: IdPrefix, mode?: Mode): RegExp {
  const key = `${prefix}:${mode ?? '*'}`;
  let re = patternCache.get(key);
  if (!re) {
    re = new RegExp(`^${prefix}_${mode ?? '(?:live|test)'}_${SUFFIX_PATTERN}$`);
    patternCache.set(key, re);
  }
  return re;
}

/** D4: the well-formedness check behind `INVALID_ORDER_ID` / `INVALID_SESSION_ID`. */
export function isIdOf(prefix: IdPrefix, value: unknown, mode?: Mode): value is string {
  return typeof value === 'string' && idPattern(prefix, mode).test(value);
}

const LINE_ID_PATTERNS = Object.fromEntries(
  Object.values(LINE_ID_PREFIXES).map((prefix) => [prefix, new RegExp(`^${prefix}_${SUFFIX_PATTERN}$`)]),
) as Record<LineIdPrefix, RegExp>;

export function isLineIdOf(prefix: LineIdPrefix, value: unknown): value is string {
  return typeof value === 'string' && LINE_ID_PATTERNS[prefix].test(value);
}

const ANY_MODED_ID = new RegExp(`^(?:${Object.values(ID_PREFIXES).join('|')})_(live|test)_${SUFFIX_PATTERN}$`);

/** The mode a well-formed id belongs to, or undefined for anything that is not one of our moded ids. */
export function modeOfId(id: string): Mode | undefined {
  const match = ANY_MODED_ID.exec(id);
  return match ? (match[1] as Mode) : undefined;
}

/**
 * A zod schema for one id kind, in either mode. Mode mismatch is deliberately not a format error: D4/D14 want a
 * well-formed id of the other mode to answer "not found", exactly like an unknown one.
 */
export function idSchema(prefix: IdPrefix, description: string) {
  return z
    .string()
    .max(idMaxLength(prefix))
    .regex(idPattern(prefix), { error: `must be an id of the form ${prefix}_<live|test>_<suffix>` })
    .describe(description);
}

export const OrderId = idSchema(ID_PREFIXES.order, 'Order id, `ord_<mode>_<suffix>`.');
export const SessionId = idSchema(ID_PREFIXES.session, 'Checkout session id, `cs_<mode>_<suffix>`.');
export const CustomerId = idSchema(ID_PREFIXES.customer, 'Customer id, `cust_<mode>_<suffix>`.');
export const LocationId = idSchema(
  ID_PREFIXES.location,
  'Merchant location id, `loc_<mode>_<suffix>`. A malformed one is `INVALID_LOCATION_ID` (D14).',
);
export const EventId = idSchema(ID_PREFIXES.event, 'Event id, `evt_<mode>_<suffix>`.');
export const DeliveryId = idSchema(ID_PREFIXES.delivery, 'Webhook delivery id, `dlv_<mode>_<suffix>`.');
export const PaymentId = idSchema(ID_PREFIXES.payment, 'Payment id, `pay_<mode>_<suffix>`.');
export const RefundId = idSchema(ID_PREFIXES.refund, 'Refund id, `re_<mode>_<suffix>` (D48).');
export const BalanceTransactionId = idSchema(
  ID_PREFIXES.balanceTransaction,
  'Balance transaction id, `txn_<mode>_<suffix>` (D52).',
);
export const WebhookEndpointId = idSchema(ID_PREFIXES.webhookEndpoint, 'Webhook endpoint id, `we_<mode>_<suffix>`.');
export const PaymentDestinationId = idSchema(
  ID_PREFIXES.paymentDestination,
  'Payment destination id, `pd_<mode>_<suffix>`.',
);
