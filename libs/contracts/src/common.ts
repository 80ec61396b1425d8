import { z } from 'zod';

// Request schemas are strict (D7): unknown keys and nulls fail. Response schemas elsewhere are plain objects
// on purpose: services are deployed separately, and a reader must not break when a newer writer adds a field.

/** D36: ISO-8601 UTC with exactly three fraction digits, e.g. `2026-11-21T10:00:00.000Z`. */
export const Timestamp = z.iso
  .datetime({ precision: 3 })
  .describe('ISO-8601 UTC timestamp with millisecond precision, e.g. `2026-11-21T10:00:00.000Z`.');

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
// Metadata (D13)

export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

/**
 * zod builds records by assignment and therefore skips an own `__proto__` key (JSON.parse makes one) without a
 * word. D13 promises keys "of any kind" are kept, so silently losing one is worse than refusing it: this
 * wrapper turns it into an error at that key. The input type is kept so z.input stays useful to clients.
 */
export function rejectProtoKey<T extends z.ZodType>(schema: T) {
  return z.preprocess((value: z.input<T>, ctx) => {
    if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, '__proto__')) {
      ctx.addIssue({
        code: 'custom',
        path: ['__proto__'],
        message: '"__proto__" cannot be used as a key',
        input: value,
      });
    }
    return value;
  }, schema);
}

/**
 * Schemas the API document describes as free-form JSON (any value), not as zod derives them. A recursive union
 * (JsonValue) is exact, but client generators cannot parse it: openapi-python-client dropped every model that
 * reaches it (CheckoutSession, SessionResponse) and the session PATCH. Generators understand "any
 * value" (an empty schema) and an object of those (`additionalProperties`). Validation is unchanged: the zod
 * schema decides what is accepted; the document only describes it more loosely.
 */
export const DOCUMENTED_AS_ANY_JSON = new WeakSet<z.ZodType>();

/** A key of a user-chosen map (metadata, sessionData): anything but `__proto__`, said in the document too. */
export function userKey() {
  return z.string().meta({ not: { const: '__proto__' } });
}

// ---------------------------------------------------------------------------------------------------------
// Nesting depth

/**
 * How deep a merchant's JSON may nest: sessionData (itself level 1) and every value in it together at most 32
 * levels of objects and arrays. Every event carries sessionData, and recursive code (schema checks, JSON and
 * BSON encoders) must never meet a value deep enough to exhaust the stack (docs/decisions.md).
 */
export const JSON_DEPTH_MAX = 32;
/** Any JSON request body, whatever its fields: a guard ahead of every schema, in the body reader (libs/http). */
export const BODY_DEPTH_MAX = 64;

/**
 * True when objects and arrays nest more than `max` levels (a scalar is 0, `{}` is 1, `{"a": []}` is 2).
 * Iterative, so any depth is measured without recursion.
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Wraps a schema with a depth check that runs first and stops the parse when it fails, so the (recursive)
 * schema inside only ever sees values of bounded depth.
 */
export function boundedDepth<T extends z.ZodType>(schema: T, max = JSON_DEPTH_MAX) {
  return z.preprocess((value: z.input<T>, ctx) => {
    if (jsonDepthExceeds(value, max)) {
      ctx.addIssue({
        code: 'custom',
        message: `must not nest objects and arrays more than ${max} levels deep`,
        input: value,
      });
    }
    return value;
  }, schema);
}

export const Metadata = rejectProtoKey(
  z
    .record(userKey().min(1).max(METADATA_KEY_MAX), z.string().max(METADATA_VALUE_MAX))
    .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, {
      error: `metadata may have at most ${METADATA_MAX_KEYS} keys`,
    }),
).meta({
  id: 'Metadata',
  maxProperties: METADATA_MAX_KEYS,
  description:
    `Key/value strings. At most ${METADATA_MAX_KEYS} keys; keys 1 to ${METADATA_KEY_MAX} characters of any ` +
    `kind (including "." and "$") except "__proto__"; values strings of at most ${METADATA_VALUE_MAX} characters. ` +
    'Replaced as a whole on update.',
});
export type Metadata = z.infer<typeof Metadata>;

// ---------------------------------------------------------------------------------------------------------
// Customer (D11)

export const EMAIL_MAX = 254;
export const NAME_MAX = 200;
export const PHONE_MAX = 32;

// zod's email format is a pragmatic subset of RFC 5322 (no quoted local parts, no IP literals): what a payer
// types into a checkout form. Lowercasing is an in-place overwrite, not a transform, so the schema still has
// a JSON Schema form.
// The check is zod's email pattern, given as a plain pattern: the document then states exactly that rule,
// where `format: "email"` would let each client library apply a stricter one of its own (Schemathesis found
// one rejecting a 110-character local part the server accepts).
export const Email = z
  .string()
  .max(EMAIL_MAX)
  .regex(z.regexes.email, { error: 'must be a valid email address' })
  .toLowerCase()
  .describe(`Email address, at most ${EMAIL_MAX} characters; stored lowercased and matched case-insensitively.`);

// E.164 allows at most 15 digits; people write them with spaces, dashes, dots and parentheses, so those are
// allowed around the digits and kept as written. One pattern says both (an optional "+", then 7 to 15 digits
// with separators anywhere), so the OpenAPI document states exactly the rule the server applies.
export const PHONE_DIGITS_MIN = 7;
export const PHONE_DIGITS_MAX = 15;
const PHONE_PATTERN = new RegExp(`^\\+?[ ().-]*(?:[0-9][ ().-]*){${PHONE_DIGITS_MIN},${PHONE_DIGITS_MAX}}$`);
export const Phone = z
  .string()
  .max(PHONE_MAX)
  .regex(PHONE_PATTERN, {
    error: `must be a phone number of ${PHONE_DIGITS_MIN} to ${PHONE_DIGITS_MAX} digits, with an optional leading "+" and spaces, "-", ".", "()"`,
  })
  .describe(
    `Phone number, preferably E.164 (\`+14155550123\`); ${PHONE_DIGITS_MIN} to ${PHONE_DIGITS_MAX} digits, at most ${PHONE_MAX} characters.`,
  );

const customerShape = {
  email: Email,
  name: nonBlankString(NAME_MAX).describe('Customer name.').optional(),
  phone: Phone.optional(),
};

/** On create a customer is found or created by email, so email is required (D11). */
export const CustomerInput = z
  .strictObject(customerShape)
  .meta({ id: 'CustomerInput', description: 'Customer, found or created by email within the organization and mode.' });
export type CustomerInput = z.infer<typeof CustomerInput>;

/** On PATCH the given fields merge into the snapshot; email may be left out when the order has a customer (D11). */
export const CustomerPatchInput = z.strictObject({ ...customerShape, email: Email.optional() }).meta({
  id: 'CustomerPatchInput',
  description:
    "Fields merged into the order's customer snapshot. Email is required only when the order has no customer; " +
    'a different email switches the order to that customer.',
});
export type CustomerPatchInput = z.infer<typeof CustomerPatchInput>;

// ---------------------------------------------------------------------------------------------------------
// Shipping address (D12)

/** ISO 3166-1 alpha-2 officially assigned codes (249). User-assigned codes such as XK are not included. */
export const COUNTRY_CODES = [
  'AD',
  'AE',
  'AF',
  'AG',
  'AI',
  'AL',
  'AM',
  'AO',
  'AQ',
  'AR',
  'AS',
  'AT',
  'AU',
  'AW',
  'AX',
  'AZ',
  'BA',
  'BB',
  'BD',
  'BE',
  'BF',
  'BG',
  'BH',
  'BI',
  'BJ',
  'BL',
  'BM',
  'BN',
  'BO',
  'BQ',
  'BR',
  'BS',
  'BT',
  'BV',
  'BW',
  'BY',
  'BZ',
  'CA',
  'CC',
  'CD',
  'CF',
  'CG',
  'CH',
  'CI',
  'CK',
  'CL',
  'CM',
  'CN',
  'CO',
  'CR',
  'CU',
  'CV',
  'CW',
  'CX',
  'CY',
  'CZ',
  'DE',
  'DJ',
  'DK',
  'DM',
  'DO',
  'DZ',
  'EC',
  'EE',
  'EG',
  'EH',
  'ER',
  'ES',
  'ET',
  'FI',
  'FJ',
  'FK',
  'FM',
  'FO',
  'FR',
  'GA',
  'GB',
  'GD',
  'GE',
  'GF',
  'GG',
  'GH',
  'GI',
  'GL',
  'GM',
  'GN',
  'GP',
  'GQ',
  'GR',
  'GS',
  'GT',
  'GU',
  'GW',
  'GY',
  'HK',
  'HM',
  'HN',
  'HR',
  'HT',
  'HU',
  'ID',
  'IE',
  'IL',
  'IM',
  'IN',
  'IO',
  'IQ',
  'IR',
  'IS',
  'IT',
  'JE',
  'JM',
  'JO',
  'JP',
  'KE',
  'KG',
  'KH',
  'KI',
  'KM',
  'KN',
  'KP',
  'KR',
  'KW',
  'KY',
  'KZ',
  'LA',
  'LB',
  'LC',
  'LI',
  'LK',
  'LR',
  'LS',
  'LT',
  'LU',
  'LV',
  'LY',
  'MA',
  'MC',
  'MD',
  'ME',
  'MF',
  'MG',
  'MH',
  'MK',
  'ML',
  'MM',
  'MN',
  'MO',
  'MP',
  'MQ',
  'MR',
  'MS',
  'MT',
  'MU',
  'MV',
  'MW',
  'MX',
  'MY',
  'MZ',
  'NA',
  'NC',
  'NE',
  'NF',
  'NG',
  'NI',
  'NL',
  'NO',
  'NP',
  'NR',
  'NU',
  'NZ',
  'OM',
  'PA',
  'PE',
  'PF',
  'PG',
  'PH',
  'PK',
  'PL',
  'PM',
  'PN',
  'PR',
  'PS',
  'PT',
  'PW',
  'PY',
  'QA',
  'RE',
  'RO',
  'RS',
  'RU',
  'RW',
  'SA',
  'SB',
  'SC',
  'SD',
  'SE',
  'SG',
  'SH',
  'SI',
  'SJ',
  'SK',
  'SL',
  'SM',
  'SN',
  'SO',
  'SR',
  'SS',
  'ST',
  'SV',
  'SX',
  'SY',
  'SZ',
  'TC',
  'TD',
  'TF',
  'TG',
  'TH',
  'TJ',
  'TK',
  'TL',
  'TM',
  'TN',
  'TO',
  'TR',
  'TT',
  'TV',
  'TW',
  'TZ',
  'UA',
  'UG',
  'UM',
  'US',
  'UY',
  'UZ',
  'VA',
  'VC',
  'VE',
  'VG',
  'VI',
  'VN',
  'VU',
  'WF',
  'WS',
  'YE',
  'YT',
  'ZA',
  'ZM',
  'ZW',
] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];

export const CountryCode = z
  .enum(COUNTRY_CODES, { error: 'must be an ISO 3166-1 alpha-2 country code in upper case, e.g. "US"' })
  .describe('ISO 3166-1 alpha-2 country code, upper case.');

export const ADDRESS_FIELD_MAX = 200;
const requiredLine = () => nonBlankString(ADDRESS_FIELD_MAX);
// Optional lines may be empty: address forms commonly submit "" for an unused second line.
const optionalLine = () => z.string().max(ADDRESS_FIELD_MAX).optional();

export const ShippingAddress = z
  .strictObject({
    name: optionalLine().describe('Recipient name.'),
    line1: requiredLine().describe('First address line.'),
    line2: optionalLine().describe('Second address line.'),
    city: requiredLine().describe('City or locality.'),
    state: optionalLine().describe('State, province or region.'),
    postalCode: optionalLine().describe('Postal or ZIP code.'),
    country: CountryCode,
  })
  .meta({
    id: 'ShippingAddress',
    description: `Shipping address; every string at most ${ADDRESS_FIELD_MAX} characters. Replaced as a whole on update.`,
  });
export type ShippingAddress = z.infer<typeof ShippingAddress>;

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
