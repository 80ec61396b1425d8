import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '@checkout/errors';
import {
  EVENT_CATALOG,
  SIGNATURE_TOLERANCE_SECONDS,
  WEBHOOK_USER_AGENT,
  describeForReaders,
  ErrorBody,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  ID_SUFFIX_MAX,
  IdempotencyKey,
  idMaxLength,
} from '@checkout/contracts';
import { COMMON_ERRORS, IDEMPOTENCY_ERRORS, PUBLIC_ROUTES, type PublicRoute } from './public-routes';

type JsonSchema = Record<string, unknown>;

/**
 * Converts a schema and hoists its named parts (zod `.meta({ id })`) into components/schemas. A name whose
 * request and response forms differ (defaults, transforms) gets an `_input`/`_output` suffix.
 */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const {
    $schema: _schema,
    $defs,
    ...root
  } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: describeForReaders,
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const defs = $defs ?? {};
  const rename = new Map(Object.keys(defs).map((name) => [name, name]));
  const toComponent = (ref: string) => `#/components/schemas/${rename.get(ref.slice(8)) ?? ref.slice(8)}`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) =>
        key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
          ? [key, toComponent(inner)]
          : key === 'discriminator' && isDiscriminator(inner)
            ? [
                key,
                {
                  ...inner,
                  mapping: Object.fromEntries(
                    Object.entries(inner.mapping).map(([value, ref]) => [value, toComponent(ref)]),
                  ),
                },
              ]
            : [key, rewrite(inner)],
      ),
    );
  };
  for (const name of Object.keys(defs)) {
    const existing = components[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(rewrite(defs[name]))) rename.set(name, `${name}_${io}`);
  }
  for (const [name, def] of Object.entries(defs)) components[rename.get(name) ?? name] = rewrite(def) as JsonSchema;
  return rewrite(root) as JsonSchema;
}

function isDiscriminator(value: unknown): value is { propertyName: string; mapping: Record<string, string> } {
  return typeof value === 'object' && value !== null && 'mapping' in value && typeof value.mapping === 'object';
}

/** Query parameters are listed one by one, so a named query schema is looked up rather than referenced. */
function inlineRef(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (components[ref.replace('#/components/schemas/', '')] ?? schema) : schema;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** The answers that say when to try again (D42, D43, outages): `Retry-After`, in whole seconds. */
const RETRY_AFTER_CODES = new Set<ErrorCode>([
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'RECOVERY_IN_PROGRESS',
  'QUOTA_EXCEEDED',
]);
const RETRY_AFTER = {
  description:
    'Whole seconds to wait before trying again: with 429 `RATE_LIMITED` (until the rate-limit ' +
    'window ends, D43), 429 `QUOTA_EXCEEDED` (until the next UTC midnight, when the daily budgets start ' +
    'again), 503 `SERVICE_UNAVAILABLE`, 409 `IDEMPOTENCY_KEY_IN_USE` and `RECOVERY_IN_PROGRESS`.',
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 86400 },
};

function errorResponses(route: PublicRoute): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  // Every POST and PATCH reads its body through the same reader, whether or not the operation defines one (D7).
  const bodyErrors: ErrorCode[] =
    route.method === 'GET' ? [] : ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_CONTENT_ENCODING'];
  for (const code of [
    ...route.errors,
    ...(route.recordsEvents ? (['QUOTA_EXCEEDED'] as const) : []),
    ...bodyErrors,
    ...(route.method === 'POST' && !route.noIdempotencyKey ? IDEMPOTENCY_ERRORS : []),
    ...COMMON_ERRORS,
  ]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const errorSchema = { $ref: '#/components/schemas/Error' };
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: `Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}`,
        ...(codes.some((code) => RETRY_AFTER_CODES.has(code)) && { headers: { 'Retry-After': RETRY_AFTER } }),
        content: { 'application/json': { schema: errorSchema } },
      },
    ]),
  );
}

/** The path id, the Idempotency-Key header and the query's parameters of an operation, in that order. */
function parametersOf(route: PublicRoute, components: Record<string, JsonSchema>): unknown[] {
  const parameters: unknown[] = [];
  if (route.idParam) {
    parameters.push({
      name: route.idParam.name,
      in: 'path',
      required: true,
      description: route.idParam.description,
      schema: {
        type: 'string',
        maxLength: idMaxLength(route.idParam.prefix),
        pattern: `^${route.idParam.prefix}_(live|test)_[0-9A-Za-z]{1,${ID_SUFFIX_MAX}}$`,
      },
    });
  }
  if (route.method === 'POST' && !route.noIdempotencyKey) {
    const { description, ...schema } = schemaOf(IdempotencyKey, 'input', components) as { description?: string };
    parameters.push({ name: IDEMPOTENCY_KEY_HEADER, in: 'header', required: false, description, schema });
  }
  if (route.query) parameters.push(...queryParameters(route.query.schema, components));
  return parameters;
}

function queryParameters(query: z.ZodObject, components: Record<string, JsonSchema>): unknown[] {
  // Each parameter is described by its value (io "output": `limit` is an integer 1..100, not "digits"), which a
  // client sends as decimal text; whether it is required is a property of what the client sends (io "input").
  type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };
  // Converted aside: the query object itself is not a component (nothing refers to it); what it names is.
  const aside = { ...components };
  const sentRoot = schemaOf(query, 'input', aside);
  const valuesRoot = schemaOf(query, 'output', aside);
  const sent = inlineRef(sentRoot, aside) as ObjectSchema;
  const values = inlineRef(valuesRoot, aside) as ObjectSchema;
  const roots = new Set(
    [sentRoot.$ref, valuesRoot.$ref].map((ref) => String(ref).replace('#/components/schemas/', '')),
  );
  for (const [name, schema] of Object.entries(aside)) if (!roots.has(name)) components[name] = schema;
  return Object.entries(values.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema as { description?: string };
    return {
      name,
      in: 'query',
      required: sent.required?.includes(name) ?? false,
      ...(description && { description }),
      schema: rest,
    };
  });
}

function operation(route: PublicRoute, components: Record<string, JsonSchema>): Record<string, unknown> {
  const parameters = parametersOf(route, components);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: route.body.required,
        content: { 'application/json': { schema: schemaOf(route.body.schema, 'input', components) } },
      },
    }),
    responses: {
      [String(route.success.status)]: successResponse(route, components),
      ...errorResponses(route),
    },
  };
}

function successResponse(route: PublicRoute, components: Record<string, JsonSchema>): Record<string, unknown> {
  return {
    description: 'Success',
    ...(route.method === 'POST' &&
      !route.noIdempotencyKey && {
        headers: {
          [IDEMPOTENT_REPLAYED_HEADER]: {
            description:
              '`true` when this is the stored first response to an earlier request with the same Idempotency-Key (D42).',
            schema: { type: 'string', enum: ['true'] },
          },
        },
      }),
    content: {
      [route.success.contentType ?? 'application/json']: {
        schema: schemaOf(route.success.schema, 'output', components),
      },
    },
    ...(route.links && {
      links: Object.fromEntries(
        Object.entries(route.links).map(([operationId, { parameter, pointer }]) => [
          operationId,
          { operationId, parameters: { [parameter]: `$response.body#${pointer}` } },
        ]),
      ),
    }),
  };
}

/** The headers of every delivery (D2, D35), as a receiver reads them. */
const DELIVERY_HEADERS: ReadonlyArray<{ name: string; description: string; required: boolean }> = [
  { name: 'Idempotency-Key', description: 'The event id; the same on every delivery of the event.', required: true },
  {
    name: 'X-Service-Event-Id',
    description: "The event id (same as Idempotency-Key and the body's `id`).",
    required: true,
  },
  {
    name: 'X-Service-Delivery-Id',
    description: 'The delivery id (`dlv_…`), stable across the retries of one delivery.',
    required: true,
  },
  { name: 'X-Service-Event-Type', description: "The event type (the body's `event`).", required: true },
  { name: 'User-Agent', description: `\`${WEBHOOK_USER_AGENT}\``, required: true },
  {
    name: 'webhook-id',
    description:
      'Standard Webhooks: the event id. Present on signed deliveries (every delivery to a webhook endpoint; a callback URL when the organization signs, D35).',
    required: false,
  },
  {
    name: 'webhook-timestamp',
    description: `Standard Webhooks: unix seconds when the attempt was signed; refuse one more than ${SIGNATURE_TOLERANCE_SECONDS} s away from your clock.`,
    required: false,
  },
  {
    name: 'webhook-signature',
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256>` of ' +
      '`<webhook-id>.<webhook-timestamp>.<raw body>` with the base64-decoded part of the secret ' +
      'after `whsec_`; during the 24 hours after a secret rotation, one signature per secret ' +
      '(D50).',
    required: false,
  },
];

/**
 * D49: the document's `webhooks`, one per event type of the catalog: the POST a receiver gets, its headers and body
 * (the same named schemas as the events API's), and what to answer.
 */
function webhooks(components: Record<string, JsonSchema>): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_CATALOG.map((entry) => [
      entry.type,
      {
        post: {
          summary: entry.type,
          description:
            `${entry.description} Sent to every enabled webhook endpoint subscribed to \`${entry.type}\` ` +
            `(D50)${entry.type.startsWith('checkout.session.') ? " and to the session's callback URL (D30)" : ''}. ` +
            `Answer any 2xx within 5 seconds; anything else is retried (D31). Deliveries are at least ` +
            `once: dedupe on the event id.`,
          tags: ['Events'],
          parameters: DELIVERY_HEADERS.map(({ name, description, required }) => ({
            name,
            in: 'header',
            required,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaOf(entry.body, 'output', components) } },
          },
          responses: {
            '200': { description: 'Received. Any 2xx acknowledges the delivery; nothing in the answer is read.' },
          },
        },
      },
    ]),
  );
}

/** OpenAPI 3.1 generated from the same zod schemas and route table the gateway validates with. */
export function buildOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, JsonSchema> = {};
  for (const route of PUBLIC_ROUTES) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, components) };
  }
  components.Error = schemaOf(ErrorBody, 'output', components);
  const deliveries = webhooks(components);
  return withIntegerFormats({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Orders and Hosted Checkout API',
      version: 'v0',
      description:
        'Orders, hosted checkout sessions and their webhook events. Amounts are integers in minor ' +
        'units (cents). Test and live data are isolated by the API key used. Requests are limited ' +
        'per API key (D43: `RATE_LIMIT_PER_WINDOW` a second, spread over the gateway replicas) ' +
        'and per client address; beyond it 429 `RATE_LIMITED` with `Retry-After`. Writes that record ' +
        'events have daily budgets per organization and mode (events, deliveries, stored bytes; lower in ' +
        'test mode); past one, 429 `QUOTA_EXCEEDED` with `quota` and `Retry-After` until the next UTC ' +
        'midnight. Bodies are JSON of at most 1 MiB (D7).',
      contact: { name: 'The operators of this API', url: serverUrl },
    },
    // x-internal (OWASP API9, inventory): the one server is the public API, not an internal one.
    servers: [{ url: serverUrl, 'x-internal': false }],
    security: [{ secretKey: [] }],
    tags: TAGS,
    paths,
    webhooks: deliveries,
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret API key: `sk_test_...` or `sk_live_...`.' },
      },
      schemas: components,
    },
  });
}

const TAGS: readonly { name: PublicRoute['tag']; description: string }[] = [
  { name: 'Orders', description: 'Orders with their items, computed amounts and payments (D9–D19).' },
  { name: 'Refunds', description: 'Refunds of what an order received, and their states (D48).' },
  {
    name: 'Reports',
    description: 'Report runs: a CSV of balance transactions, orders or refunds over a window, kept 30 days (D52).',
  },
  {
    name: 'Balance',
    description: 'The balance and its lines: one immutable balance transaction per money movement (D52).',
  },
  { name: 'Checkout sessions', description: 'Hosted checkout pages for an order, and their lifecycle (D21–D26).' },
  { name: 'Test helpers', description: 'Test mode only (D29): drive a session as a customer or the clock would.' },
  {
    name: 'Events',
    description: 'Webhook events and their deliveries: list, inspect, redeliver, recover (D30–D35, D44).',
  },
  {
    name: 'Webhook endpoints',
    description: 'Endpoints that receive the events they subscribe to, and the event catalog (D49–D51).',
  },
  { name: 'Checkout settings', description: "The hosted page's brand and default locale." },
  { name: 'Dashboard', description: 'Login links to the merchant dashboard (D47).' },
];

/**
 * An integer's `format`, from the bounds zod gives it: int32 when they fit in 32 bits, int64 otherwise (zod's
 * `z.int()` is a safe integer, ±2⁵³−1). Generators pick the wire type from it (OWASP API4: integer-format).
 */
function withIntegerFormats<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withIntegerFormats) as T;
  if (value === null || typeof value !== 'object') return value;
  const node = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, withIntegerFormats(inner)]),
  ) as Record<string, unknown>;
  if (node.type === 'integer' && node.format === undefined) {
    const fits = (bound: unknown) => typeof bound === 'number' && Math.abs(bound) <= 2 ** 31 - 1;
    node.format = fits(node.minimum) && fits(node.maximum) ? 'int32' : 'int64';
  }
  return node as T;
}
