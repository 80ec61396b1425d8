import { z } from 'zod';
import { DOCUMENTED_AS_ANY_JSON } from './user-data';
import { catalogEntryOf, type EventType } from './event-catalog';

export type JsonSchema = Record<string, unknown>;

/**
 * What zod's conversion leaves out that readers of our documents need (the OpenAPI document, the event catalog's
 * schemas): free-form JSON (DOCUMENTED_AS_ANY_JSON) as "any value" with its description, and the `discriminator` of
 * a discriminated union whose options are named, so generated clients tell the options apart by that property.
 * Pass it as `override` to z.toJSONSchema.
 */
export function describeForReaders(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
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

/**
 * D49: the JSON Schema (draft 2020-12) of one public event type's body, self-contained (named parts under `$defs`):
 * what `GET /v0/event_types` shows and what libs/contracts/schemas/events/<type>.json commits.
 */
export function eventBodyJsonSchema(type: EventType): JsonSchema {
  const entry = catalogEntryOf(type);
  const { $schema, ...rest } = z.toJSONSchema(entry.body, {
    io: 'output',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: (ctx) => {
      describeForReaders(ctx);
      // zod closes every object it outputs (additionalProperties: false); a body gains optional fields over time
      // and a consumer's validator must let them through, so the objects a body promises stay open.
      const schema: unknown = ctx.zodSchema;
      if (schema instanceof z.ZodObject && schema.def.catchall === undefined)
        delete ctx.jsonSchema.additionalProperties;
      // A field with a default is one an older producer's body lacks (D48's amounts.refunded: events recorded
      // before refunds existed, served and redelivered as stored), so a consumer must not require it.
      if (schema instanceof z.ZodObject && Array.isArray(ctx.jsonSchema.required)) {
        const shape = schema.shape as Record<string, z.ZodType>;
        const required = ctx.jsonSchema.required.filter((key) => !(shape[key] instanceof z.ZodDefault));
        if (required.length > 0) ctx.jsonSchema.required = required;
        else delete ctx.jsonSchema.required;
      }
    },
  }) as JsonSchema;
  return { $schema, title: type, description: entry.description, ...rest };
}

// ---------------------------------------------------------------------------------------------------------
// Event bodies are a contract (D49): what a change may do to a committed schema

/**
 * The changes to an event body's schema that would break an existing consumer, each as "path: what changed":
 * - a field removed (renamed is removed plus added) or no longer always present;
 * - a field's type changed (its JSON types, a format, nullable added or removed);
 * - a value of an enum or const removed (a consumer's branch for it would never run again);
 * - a new required field (a body a consumer built from the old schema, a test fixture or a mock, no longer
 *   validates): new fields are added as optional.
 * Allowed: new optional fields, new enum values (consumers accept values they do not know, as of any type's
 * documentation), descriptions. Empty when `next` keeps every promise of `previous`.
 */
export function breakingChanges(previous: JsonSchema, next: JsonSchema): string[] {
  const problems: string[] = [];
  compare(previous, previous, next, next, '', problems, new Set());
  return problems;
}

function compare(
  previousRoot: JsonSchema,
  previousSchema: unknown,
  nextRoot: JsonSchema,
  nextSchema: unknown,
  path: string,
  problems: string[],
  seen: Set<string>,
): void {
  const before = resolve(previousRoot, previousSchema);
  const after = resolve(nextRoot, nextSchema);
  // A recursive schema is compared once per pair of definitions.
  const key = `${refOf(previousSchema) ?? path}|${refOf(nextSchema) ?? path}`;
  if (seen.has(key)) return;
  seen.add(key);
  const at = path === '' ? '(body)' : path;

  const typesBefore = typesOf(previousRoot, before);
  const typesAfter = typesOf(nextRoot, after);
  if (!sameSet(typesBefore, typesAfter)) {
    problems.push(`${at}: type changed from ${describeTypes(typesBefore)} to ${describeTypes(typesAfter)}`);
    return;
  }
  if (before.format !== after.format) {
    const format = (schema: JsonSchema) => (typeof schema.format === 'string' ? schema.format : 'none');
    problems.push(`${at}: format changed from ${format(before)} to ${format(after)}`);
  }
  const valuesBefore = valuesOf(previousRoot, before);
  const valuesAfter = valuesOf(nextRoot, after);
  if (valuesBefore && valuesAfter) {
    for (const value of valuesBefore)
      if (!valuesAfter.some((v) => JSON.stringify(v) === JSON.stringify(value)))
        problems.push(`${at}: value ${JSON.stringify(value)} removed`);
  }

  const objectBefore = objectPart(previousRoot, before);
  const objectAfter = objectPart(nextRoot, after);
  if (objectBefore && objectAfter) {
    const requiredBefore = new Set(objectBefore.required);
    const requiredAfter = new Set(objectAfter.required);
    for (const [name, schema] of Object.entries(objectBefore.properties)) {
      const field = path === '' ? name : `${path}.${name}`;
      if (!(name in objectAfter.properties)) {
        problems.push(`${field}: removed`);
        continue;
      }
      if (requiredBefore.has(name) && !requiredAfter.has(name)) problems.push(`${field}: no longer always present`);
      compare(previousRoot, schema, nextRoot, objectAfter.properties[name], field, problems, seen);
    }
    for (const name of requiredAfter)
      if (!requiredBefore.has(name)) problems.push(`${path === '' ? name : `${path}.${name}`}: new required field`);
  }

  const itemsBefore = arrayItems(previousRoot, before);
  const itemsAfter = arrayItems(nextRoot, after);
  if (itemsBefore !== undefined && itemsAfter !== undefined)
    compare(previousRoot, itemsBefore, nextRoot, itemsAfter, `${path}[]`, problems, seen);

  const extraBefore = mapValues(previousRoot, before);
  const extraAfter = mapValues(nextRoot, after);
  if (extraBefore !== undefined && extraAfter !== undefined)
    compare(previousRoot, extraBefore, nextRoot, extraAfter, `${path}{}`, problems, seen);
}

function refOf(schema: unknown): string | undefined {
  return isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `$ref`s into the document's `$defs` (`#/$defs/Name`). */
function resolve(root: JsonSchema, schema: unknown): JsonSchema {
  let current: unknown = schema;
  for (let hops = 0; hops < 32; hops += 1) {
    const ref = refOf(current);
    if (ref === undefined) break;
    const name = ref.replace(/^#\/\$defs\//, '');
    current = (root.$defs as Record<string, unknown> | undefined)?.[name];
  }
  if (current === true || current === undefined) return {};
  return isObject(current) ? current : {};
}

/** The alternatives of a schema: its anyOf/oneOf options, or itself. */
function alternatives(root: JsonSchema, schema: JsonSchema): JsonSchema[] {
  const options = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (!Array.isArray(options)) return [schema];
  return options.flatMap((option) => alternatives(root, resolve(root, option)));
}

/** The JSON types a value of this schema may have; "any" for a schema that says nothing. */
function typesOf(root: JsonSchema, schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  for (const option of alternatives(root, schema)) {
    if (typeof option.type === 'string') types.add(option.type === 'integer' ? 'number' : option.type);
    else if (Array.isArray(option.type)) for (const t of option.type) types.add(t === 'integer' ? 'number' : String(t));
    else if ('const' in option) types.add(jsonType(option.const));
    else if (Array.isArray(option.enum)) for (const v of option.enum) types.add(jsonType(v));
    else if (option.properties !== undefined) types.add('object');
    else types.add('any');
  }
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : typeof value;
}

/** The values an enum or const allows, or undefined when any value of its types is allowed. */
function valuesOf(root: JsonSchema, schema: JsonSchema): unknown[] | undefined {
  const values: unknown[] = [];
  for (const option of alternatives(root, schema)) {
    if ('const' in option) values.push(option.const);
    else if (Array.isArray(option.enum)) values.push(...(option.enum as unknown[]));
    else if (option.type !== 'null') return undefined;
  }
  return values;
}

function objectPart(
  root: JsonSchema,
  schema: JsonSchema,
): { properties: Record<string, unknown>; required: string[] } | undefined {
  const object = alternatives(root, schema).find((option) => isObject(option.properties));
  if (!object) return undefined;
  return {
    properties: object.properties as Record<string, unknown>,
    required: Array.isArray(object.required) ? (object.required as string[]) : [],
  };
}

function arrayItems(root: JsonSchema, schema: JsonSchema): unknown {
  return alternatives(root, schema).find((option) => option.type === 'array')?.items;
}

/** The value schema of a map (an object described by additionalProperties only). */
function mapValues(root: JsonSchema, schema: JsonSchema): unknown {
  const map = alternatives(root, schema).find(
    (option) => option.type === 'object' && isObject(option.additionalProperties),
  );
  return map?.additionalProperties;
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

function describeTypes(types: Set<string>): string {
  return [...types].sort().join(' | ');
}
