import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '@checkout/errors';
import {
  DOCUMENTED_AS_ANY_JSON,
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
    override: forGenerators,
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

/**
 * What zod's conversion leaves out that client generators need: free-form JSON
 * (DOCUMENTED_AS_ANY_JSON) as "any value" with its description, and the `discriminator` of a discriminated
 * union whose options are named, so generated clients tell the options apart by that property.
 */
function forGenerators(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const schema = ctx.zodSchema as z.ZodType;
  if (DOCUMENTED_AS_ANY_JSON.has(schema)) {
    const { description } = ctx.jsonSchema;
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    if (description !== undefined) ctx.jsonSchema.description = description;
    return;
  }
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const propertyName = schema.def.discriminator;
    const mapping: Record<string, string> = {};
    for (const option of schema.options as readonly z.ZodType[]) {
      const id = z.globalRegistry.get(option)?.id;
      // The discriminator's values of each option, as zod itself collects them for the union's parser.
      const values = option._zod.propValues?.[propertyName];
      if (id === undefined || values?.size !== 1) return;
      mapping[String([...values][0])] = `#/$defs/${id}`;
    }
    ctx.jsonSchema.discriminator = { propertyName, mapping };
  }
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

/** OpenAPI 3.1 generated from the same zod schemas and route table the gateway validates with. */
export function buildOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, JsonSchema> = {};
  for (const route of PUBLIC_ROUTES) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, components) };
  }
  components.Error = schemaOf(ErrorBody, 'output', components);
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
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret API key: `sk_test_...` or `sk_live_...`.' },
      },
      schemas: components,
    },
  };
}
