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
  IdempotencyKey,
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

function errorResponses(route: PublicRoute): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  // Every POST and PATCH reads its body through the same reader, whether or not the operation defines one (D7).
  const bodyErrors: ErrorCode[] =
    route.method === 'GET' ? [] : ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_CONTENT_ENCODING'];
  for (const code of [
    ...route.errors,
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
        content: { 'application/json': { schema: errorSchema } },
      },
    ]),
  );
}

function operation(route: PublicRoute, components: Record<string, JsonSchema>): Record<string, unknown> {
  const parameters: unknown[] = [];
  if (route.idParam) {
    parameters.push({
      name: route.idParam.name,
      in: 'path',
      required: true,
      description: route.idParam.description,
      schema: { type: 'string', pattern: `^${route.idParam.prefix}_(live|test)_[0-9A-Za-z]{1,64}$` },
    });
  }
  if (route.method === 'POST' && !route.noIdempotencyKey) {
    const { description, ...schema } = schemaOf(IdempotencyKey, 'input', components) as { description?: string };
    parameters.push({ name: IDEMPOTENCY_KEY_HEADER, in: 'header', required: false, description, schema });
  }
  if (route.query) {
    // Each parameter is described by its value (io "output": `limit` is an integer 1..100, not "digits"), which a
    // client sends as decimal text; whether it is required is a property of what the client sends (io "input").
    type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };
    const sent = inlineRef(schemaOf(route.query.schema, 'input', components), components) as ObjectSchema;
    const values = inlineRef(schemaOf(route.query.schema, 'output', components), components) as ObjectSchema;
    for (const [name, schema] of Object.entries(values.properties ?? {})) {
      const { description, ...rest } = schema as { description?: string };
      parameters.push({
        name,
        in: 'query',
        required: sent.required?.includes(name) ?? false,
        ...(description && { description }),
        schema: rest,
      });
    }
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: route.body.required,
        content: { 'application/json': { schema: schemaOf(route.body.schema, 'input', components) } },
      },
    }),
    responses: {
      [String(route.success.status)]: {
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
        content: { 'application/json': { schema: schemaOf(route.success.schema, 'output', components) } },
        ...(route.links && {
          links: Object.fromEntries(
            Object.entries(route.links).map(([operationId, { parameter, pointer }]) => [
              operationId,
              { operationId, parameters: { [parameter]: `$response.body#${pointer}` } },
            ]),
          ),
        }),
      },
      ...errorResponses(route),
    },
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
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` with the base64-decoded part of the secret after `whsec_`; during the 24 hours after a secret rotation, one signature per secret (D50).',
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
          description: `${entry.description} Sent to every enabled webhook endpoint subscribed to \`${entry.type}\` (D50)${entry.type.startsWith('checkout.session.') ? " and to the session's callback URL (D30)" : ''}. Answer any 2xx within 5 seconds; anything else is retried (D31). Deliveries are at least once: dedupe on the event id.`,
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
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Orders and Hosted Checkout API',
      version: 'v0',
      description:
        'Orders, hosted checkout sessions and their webhook events. Amounts are integers in minor units (cents). Test and live data are isolated by the API key used.',
    },
    servers: [{ url: serverUrl }],
    security: [{ secretKey: [] }],
    paths,
    webhooks: deliveries,
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret API key: `sk_test_...` or `sk_live_...`.' },
      },
      schemas: components,
    },
  };
}
