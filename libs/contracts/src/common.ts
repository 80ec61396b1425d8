import { z } from 'zod';
import { idMaxLength } from './ids';

// Request schemas are strict (D7): unknown keys and nulls fail. Response schemas elsewhere are plain objects
// on purpose: services are deployed separately, and a reader must not break when a newer writer adds a field.

/** D36: ISO-8601 UTC with exactly three fraction digits, e.g. `2026-11-21T10:00:00.000Z`. */
export const Timestamp = z.iso
  .datetime({ precision: 3 })
  .max('2026-11-21T10:00:00.000Z'.length)
  .describe('ISO-8601 UTC timestamp with millisecond precision, e.g. `2026-11-21T10:00:00.000Z`.');

/**
 * A list's time filter (D51: the events list's `createdAfter` and `createdBefore`, D52's balance transactions):
 * ISO-8601 with any offset, optional. Malformed → the list's 400 `INVALID_REQUEST`.
 */
export function isoTimeFilter(description: string) {
  return z.iso.datetime({ offset: true }).max(40).optional().describe(description);
}

// JSON Schema has no "not blank"; a pattern keeps the rule visible in the OpenAPI document as well.
const NOT_BLANK = /\S/;

/** A string that must carry at least one non-whitespace character, bounded by `max` (UTF-16 code units). */
export function nonBlankString(max: number) {
  return z.string().min(1).max(max).regex(NOT_BLANK, { error: 'must not be blank' });
}

// ---------------------------------------------------------------------------------------------------------
// Pagination (D20)

export const PAGE_DEFAULT = 1;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;

export const Pagination = z
  .object({
    page: z.int().min(1).describe('Current page, starting at 1.'),
    limit: z.int().min(1).max(LIMIT_MAX).describe('Results per page.'),
    total: z.int().min(0).describe('Total number of matching results.'),
    hasMore: z.boolean().describe('True when further pages exist: page × limit < total.'),
  })
  .meta({ id: 'Pagination' });
export type Pagination = z.infer<typeof Pagination>;

// Query values arrive as strings (or string arrays when repeated). Only plain decimal digits are accepted, so
// "1.5", "1e2", " 2", "" and "abc" fail instead of being coerced the way Number() would (D20); a repeated
// parameter is an array and fails the string check. The OpenAPI document describes each parameter by its
// value (io "output": an integer with its bounds), which is what a client sends as decimal digits.
const DECIMAL = /^[0-9]+$/;

function queryInt(name: string, min: number, max: number, fallback: number, description: string) {
  const bounds = z
    .int({ error: `${name} must be an integer` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` });
  return z
    .string({ error: `${name} must be a single integer` })
    .regex(DECIMAL, { error: `${name} must be an integer` })
    .transform(Number)
    .pipe(bounds)
    .default(fallback)
    .describe(description);
}

/**
 * The largest page number: (page − 1) × limit stays an exact integer for the database's skip, and no merchant
 * pages through more than a hundred million orders one page at a time.
 */
export const PAGE_MAX = 1_000_000;
export const PageQuery = queryInt('page', 1, PAGE_MAX, PAGE_DEFAULT, `Page number, 1 to ${PAGE_MAX}. Default 1.`);
export const LimitQuery = queryInt(
  'limit',
  1,
  LIMIT_MAX,
  LIMIT_DEFAULT,
  `Results per page, 1 to ${LIMIT_MAX}. Default ${LIMIT_DEFAULT}. An empty value is an error, not a default.`,
);
/** The `page`/`limit` pair every list endpoint accepts; spread it into a list query's shape. */
export const paginationQueryShape = { page: PageQuery, limit: LimitQuery };

// ---------------------------------------------------------------------------------------------------------
// URLs, external ids, locations, payment destinations

export const URL_MAX = 2048;

// Not z.url(): it trims and rewrites its input before checking, so " https://x" would pass. The prefix pattern
// insists on an absolute URL exactly as written, and the original string is kept, so `{SESSION_ID}`/`{ORDER_ID}`
// placeholders stay unencoded for substitution (D22).
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
function parsesAsHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
const URL_ERROR = 'must be an absolute http or https URL';
export const HttpUrl = z
  .string()
  .max(URL_MAX)
  .regex(ABSOLUTE_HTTP_URL, { error: URL_ERROR })
  .refine(parsesAsHttpUrl, { error: URL_ERROR })
  .meta({ format: 'uri', description: `Absolute http or https URL, at most ${URL_MAX} characters.` });

export const EXTERNAL_ID_MAX = 255;
export const ExternalId = z
  .string()
  .min(1, { error: 'externalId must not be empty' })
  .max(EXTERNAL_ID_MAX)
  .describe(
    `The caller's own order identifier, 1 to ${EXTERNAL_ID_MAX} characters; unique per organization and mode. ` +
      'Immutable after creation.',
  );

// D15. Base58 excludes 0, O, I and l, so an EVM address can never be misread as a Solana one.
const PAYMENT_DESTINATION_PATTERN =
  /^(?:pd_(?:live|test)_[0-9A-Za-z]{1,64}|0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;
export const PaymentDestination = z
  .string()
  // The pattern's own bound: the longest alternative is a pd_ id (an EVM address is 42, a Solana one at most 44).
  .max(idMaxLength('pd'))
  .regex(PAYMENT_DESTINATION_PATTERN, {
    error: 'must be a payment destination id (pd_<mode>_<suffix>), an EVM address or a Solana address',
  })
  .describe(
    'Overrides payment routing: a payment destination id `pd_<mode>_<suffix>`, an EVM address (`0x` + 40 hex) or a ' +
      'base58 Solana address (32 to 44 characters). Must name an active, verified destination of the organization ' +
      'and mode.',
  );

// ---------------------------------------------------------------------------------------------------------
// Idempotency (D42)

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** How long a key and its first response are kept, per API key. */
export const IDEMPOTENCY_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

export const IdempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .describe(
    `Makes a POST safe to retry (D42): 1 to ${IDEMPOTENCY_KEY_MAX} characters, kept per API key for 24 hours. A repeat with ` +
      'the same body returns the first response with `Idempotent-Replayed: true`; another body → 409 ' +
      '`IDEMPOTENCY_KEY_REUSED`; while the first request runs → 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After`. ' +
      'Responses of 500 and above are not kept.',
  );
