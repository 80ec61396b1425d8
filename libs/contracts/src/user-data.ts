import { z } from 'zod';

// What a merchant or a payer puts in maps of keys of their own choosing (metadata, sessionData): bounded in keys,
// lengths and nesting depth, and said so in the OpenAPI document.

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
