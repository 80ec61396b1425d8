import { z } from 'zod';
import { HttpUrl, Timestamp } from './common';
import { DOCUMENTED_AS_ANY_JSON, JSON_DEPTH_MAX, boundedDepth, rejectProtoKey, userKey } from './user-data';
import { CustomerId, SessionId } from './ids';
import { Order, orderCreateShape } from './orders';

export const SESSION_STATUSES = ['pending', 'completed', 'expired', 'cancelled'] as const;
export const SessionStatus = z
  .enum(SESSION_STATUSES)
  .describe(
    '`pending` until its order is paid (`completed`), it reaches expiresAt (`expired`) or its order is cancelled (`cancelled`).',
  );
export type SessionStatus = z.infer<typeof SessionStatus>;

// D16, D23
export const EXPIRES_IN_MINUTES_MIN = 15;
export const EXPIRES_IN_MINUTES_MAX = 1440;
export const EXPIRES_IN_MINUTES_DEFAULT = 60;
export const EXTEND_EXPIRY_MIN = 1;
export const EXTEND_EXPIRY_MAX = 1440;
/** D23: expiresAt − createdAt may never exceed this, however often a session is extended. */
export const SESSION_MAX_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_DATA_MAX_KEYS = 50;
export const SESSION_DATA_MAX_BYTES = 8 * 1024;

// ---------------------------------------------------------------------------------------------------------
// JSON values for sessionData

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// Own recursive schema rather than z.json(), so a nested "__proto__" key is an error instead of silently
// vanishing (see rejectProtoKey). Recursive checks overflow the stack near a thousand levels, so every schema
// that lets a merchant's JSON in wraps this one in boundedDepth (JSON_DEPTH_MAX).
const JsonTree: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(JsonTree),
      rejectProtoKey(z.record(userKey(), JsonTree)),
    ]),
  )
  .meta({ id: 'JsonValue', description: 'Any JSON value; objects never have the key "__proto__".' });
DOCUMENTED_AS_ANY_JSON.add(JsonTree);

/** Any JSON value nesting at most JSON_DEPTH_MAX levels. */
export const JsonValue = boundedDepth(JsonTree);

/** UTF-8 size of the JSON text, the measure of D23's 8 KiB limit. */
export function serializedSize(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

export const SessionData = boundedDepth(
  rejectProtoKey(
    // A key is bounded by the whole value's size; saying so gives the document a maxLength for keys too.
    z.record(userKey().max(SESSION_DATA_MAX_BYTES), JsonTree).superRefine((value, ctx) => {
      if (Object.keys(value).length > SESSION_DATA_MAX_KEYS) {
        ctx.addIssue({ code: 'custom', message: `sessionData may have at most ${SESSION_DATA_MAX_KEYS} keys` });
      }
      if (serializedSize(value) > SESSION_DATA_MAX_BYTES) {
        ctx.addIssue({ code: 'custom', message: `sessionData may be at most ${SESSION_DATA_MAX_BYTES} bytes as JSON` });
      }
    }),
  ),
).meta({
  id: 'SessionData',
  maxProperties: SESSION_DATA_MAX_KEYS,
  description:
    `Arbitrary JSON values by key; at most ${SESSION_DATA_MAX_KEYS} keys, ${SESSION_DATA_MAX_BYTES} bytes ` +
    `serialized, and ${JSON_DEPTH_MAX} levels of nesting (the object itself is level 1). No key is "__proto__". ` +
    'Merged shallowly into the stored object; the merged result obeys the same limits.',
});
export type SessionData = z.infer<typeof SessionData>;

// ---------------------------------------------------------------------------------------------------------
// requireFromCustomer (D16)

const requireFlag = (what: string) =>
  z.boolean().default(false).describe(`Collect ${what} on the hosted page before payment. Default false.`);

// Defaults are filled at parse time so every stored session (and every response) carries all three flags.
export const RequireFromCustomerInput = z
  .strictObject({
    phone: requireFlag('a phone number'),
    shippingAddress: requireFlag('a shipping address'),
    location: requireFlag('a location'),
  })
  .meta({ id: 'RequireFromCustomerInput' });
export type RequireFromCustomerInput = z.infer<typeof RequireFromCustomerInput>;

export const RequireFromCustomer = z
  .object({ phone: z.boolean(), shippingAddress: z.boolean(), location: z.boolean() })
  .meta({ id: 'RequireFromCustomer', description: 'Inputs the hosted page collects before payment.' });
export type RequireFromCustomer = z.infer<typeof RequireFromCustomer>;

// ---------------------------------------------------------------------------------------------------------
// The hosted page's language (D53)

/** The languages the hosted page speaks; `auto` picks one from the browser's Accept-Language when the page opens. */
export const SESSION_LOCALES = ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'ja', 'zh-Hans', 'ar'] as const;
export type PageLocale = (typeof SESSION_LOCALES)[number];

export const SessionLocale = z
  .enum(['auto', ...SESSION_LOCALES])
  .describe(
    "The hosted page's language: `auto` (the best match of the browser's Accept-Language among the others, else " +
      '`en`) or one of them. `ar` is laid out right to left.',
  )
  .meta({ id: 'SessionLocale' });
export type SessionLocale = z.infer<typeof SessionLocale>;

// ---------------------------------------------------------------------------------------------------------
// Requests

const placeholderNote = '`{SESSION_ID}` and `{ORDER_ID}` are replaced everywhere in the URL at creation.';

export const CreateSessionRequest = z
  .strictObject({
    ...orderCreateShape,
    expiresInMinutes: z
      .int()
      .min(EXPIRES_IN_MINUTES_MIN)
      .max(EXPIRES_IN_MINUTES_MAX)
      .default(EXPIRES_IN_MINUTES_DEFAULT)
      .describe(
        `Minutes until the session expires, ${EXPIRES_IN_MINUTES_MIN} to ${EXPIRES_IN_MINUTES_MAX}. Default ${EXPIRES_IN_MINUTES_DEFAULT}.`,
      ),
    successUrl: HttpUrl.optional().describe(`Where the customer is sent after payment. ${placeholderNote}`),
    callbackUrl: HttpUrl.optional().describe(
      `Receives this session's webhooks, overriding the organization's default. ${placeholderNote}`,
    ),
    requireFromCustomer: RequireFromCustomerInput.default({
      phone: false,
      shippingAddress: false,
      location: false,
    }),
    // Omitted is not `auto`: the merchant's default locale (checkout settings) applies, else `auto`.
    locale: SessionLocale.optional().describe(
      "The hosted page's language; omitted, the organization's `defaultLocale` (checkout settings), else `auto`.",
    ),
  })
  .meta({
    id: 'CreateSessionRequest',
    description: 'Creates the order and its checkout session in one step. The order total must be at least 1 (D24).',
  });
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

export const UpdateSessionRequest = z
  .strictObject({
    extendExpiry: z
      .int()
      .min(EXTEND_EXPIRY_MIN)
      .max(EXTEND_EXPIRY_MAX)
      .optional()
      .describe(
        `Minutes added to the current expiresAt, ${EXTEND_EXPIRY_MIN} to ${EXTEND_EXPIRY_MAX}; only while pending, ` +
          'and the whole lifetime may not exceed 7 days.',
      ),
    sessionData: SessionData.optional(),
  })
  .meta({ id: 'UpdateSessionRequest' });
export type UpdateSessionRequest = z.infer<typeof UpdateSessionRequest>;

/** D29: test-mode helper that drives a payment attempt through the hosted page's code path. */
export const PAYMENT_METHODS = ['card', 'stablecoin', 'stored_value'] as const;
export const PaymentMethod = z.enum(PAYMENT_METHODS).describe('Payment method.');
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const PAYMENT_OUTCOMES = ['succeeded', 'declined'] as const;

export const PayRequest = z
  .strictObject({
    method: PaymentMethod.default('card').describe(
      'Payment method (default card): one the session offers, enabled for the organization in test mode (D26); another is 400 SESSION_NOT_PAYABLE.',
    ),
    amount: z.int().min(1).optional().describe('Amount to pay in minor units; default the amount still due.'),
    outcome: z.enum(PAYMENT_OUTCOMES).default('succeeded').describe('Simulated outcome. Default succeeded.'),
  })
  .meta({ id: 'PayRequest' });
export type PayRequest = z.infer<typeof PayRequest>;

// ---------------------------------------------------------------------------------------------------------
// Responses (D1, D21, D22, D39)

export const CheckoutSession = z
  .object({
    id: SessionId,
    url: z.url().describe('Hosted payment page: `<checkout base URL>/<session id>`.'),
    status: SessionStatus,
    active: z.boolean().describe('Deprecated: use status. True exactly when status is `pending`.'),
    customerId: CustomerId.optional(),
    failedAttempts: z.int().min(0),
    successUrl: z.string().nullable().describe('Placeholders already substituted; null when not given.'),
    callbackUrl: z
      .string()
      .nullable()
      .describe("Placeholders already substituted; the organization's default when not given; null with neither."),
    expiresAt: Timestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    requireFromCustomer: RequireFromCustomer,
    // A session stored before D53, or presented by a version that predates it, has no locale: it is `auto`.
    locale: SessionLocale.default('auto'),
    sessionData: boundedDepth(z.record(z.string(), JsonTree)).describe(
      `\`{}\` until set; nests at most ${JSON_DEPTH_MAX} levels.`,
    ),
    order: Order,
  })
  .meta({ id: 'CheckoutSession' });
export type CheckoutSession = z.infer<typeof CheckoutSession>;

export const SessionResponse = z.object({ session: CheckoutSession }).meta({ id: 'SessionResponse' });
export type SessionResponse = z.infer<typeof SessionResponse>;
