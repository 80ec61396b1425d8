// Generates docs/config-reference.md from the services' zod ConfigSchemas (the schemas are the truth; the doc
// is never edited by hand).   npm run config-reference          (write)
//                              npm run config-reference -- --check   (exit 1 if the committed file is stale)
// deploy/test/config-reference.test.ts runs the check in `npm test`.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigSchema as gateway } from '@checkout/gateway/config';
import { ConfigSchema as orders } from '@checkout/orders/config';
import { ConfigSchema as sessions } from '@checkout/sessions/config';
import { ConfigSchema as dispatcher } from '@checkout/webhook-dispatcher/config';
import { TopicsJobConfigSchema } from '../deploy/scripts/create-topics';

export const REFERENCE_PATH = resolve(fileURLToPath(new URL('..', import.meta.url)), 'docs/config-reference.md');

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

export const SERVICE_SCHEMAS: ReadonlyArray<{ service: string; schema: ObjectSchema }> = [
  { service: 'gateway', schema: gateway },
  { service: 'orders', schema: orders },
  { service: 'sessions', schema: sessions },
  { service: 'webhook-dispatcher', schema: dispatcher },
];

export interface Setting {
  name: string;
  type: string;
  required: boolean;
  /** The default as it would be written in the environment, or null when there is none. */
  default: string | null;
  description: string;
}

interface JsonProperty {
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  description?: string;
}

/** Every key of an object schema, in declaration order, with what an operator needs to set it. */
export function settingsOf(schema: ObjectSchema): Setting[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonProperty>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.keys(schema.shape).map((name) => {
    const property = json.properties?.[name] ?? {};
    return {
      name,
      type: describeType(property),
      required: required.has(name),
      default: defaultOf(schema.shape[name] as z.ZodType),
      description: property.description ?? (schema.shape[name] as z.ZodType).description ?? '',
    };
  });
}

function defaultOf(field: z.ZodType): string | null {
  type Def = { type: string; defaultValue?: unknown; innerType?: z.ZodType; out?: z.ZodType };
  let current: z.ZodType | undefined = field;
  while (current) {
    const def: Def = (current as unknown as { _zod: { def: Def } })._zod.def;
    if (def.type === 'default' || def.type === 'prefault') return envString(def.defaultValue);
    // z.preprocess (an empty value read as unset) is a pipe into the schema that holds the default.
    if (def.type === 'pipe') current = def.out;
    else
      current =
        def.type === 'optional' || def.type === 'nullable' || def.type === 'readonly' ? def.innerType : undefined;
  }
  return null;
}

function envString(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

function describeType(p: JsonProperty): string {
  if (p.enum) {
    const values = p.enum.map(String);
    if (values.length === 4 && ['true', 'false', '1', '0'].every((v) => values.includes(v)))
      return 'boolean (`true`/`false`/`1`/`0`)';
    return `one of ${values.map((v) => `\`${v}\``).join(', ')}`;
  }
  if (p.type === 'integer' || p.type === 'number') {
    const min = p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + 1 : p.minimum;
    const range =
      min !== undefined && p.maximum !== undefined
        ? ` ${min}..${p.maximum}`
        : min !== undefined
          ? ` ≥ ${min}`
          : p.maximum !== undefined
            ? ` ≤ ${p.maximum}`
            : '';
    return `integer${range}`;
  }
  if (p.format === 'uri') return 'http(s) URL';
  if (p.pattern) return `string matching \`${p.pattern}\``;
  if (p.minLength !== undefined && p.minLength > 1) return `string, ≥ ${p.minLength} characters`;
  if (p.minLength === 1) return 'non-empty string';
  return 'string';
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string | null) => (s === null ? '—' : s === '' ? '(empty)' : `\`${cell(s)}\``);

function table(settings: readonly Setting[]): string[] {
  return [
    '| Variable | Required | Default | Type | Description |',
    '|---|---|---|---|---|',
    ...settings.map(
      (s) =>
        `| \`${s.name}\` | ${s.required ? '**yes**' : s.default === null ? 'no (optional)' : 'no'} | ${code(s.default)} | ${cell(s.type)} | ${cell(s.description)} |`,
    ),
  ];
}

export function renderConfigReference(): string {
  const perService = SERVICE_SCHEMAS.map(({ service, schema }) => ({ service, settings: settingsOf(schema) }));
  const names = [...new Set(perService.flatMap((s) => s.settings.map((x) => x.name)))].sort();
  const lines: string[] = [
    '# Configuration reference',
    '',
    "<!-- Generated by `npm run config-reference` from each service's `ConfigSchema` (services/*/src/config.ts). Do not edit by hand: `npm test` fails when this file is stale. -->",
    '',
    'Every service reads its settings from the environment only, validates them with zod when it starts, and',
    'refuses to start with a message naming each bad variable (secrets are redacted). Booleans accept',
    '`true`/`false`/`1`/`0`; lists are comma-separated. In Kubernetes, non-secret settings come from ConfigMaps',
    'and secrets from Secrets (`deploy/k8s`); locally from `testkit/testing/src/stack-env.ts` or `deploy/compose.yaml`.',
    '',
    'Secrets: `INTERNAL_TOKEN`, `ADMIN_TOKEN`, `PROCESSOR_WEBHOOK_SECRET`, `PROCESSOR_REFUND_WEBHOOK_SECRET`, `CSRF_SECRET`, `ID_DERIVATION_SECRET`, `KAFKA_SASL_PASSWORD`, and',
    '`MONGODB_URL` (it carries credentials); `INTERNAL_CALLERS` holds only hashes but is kept with them. A secret must be generated',
    '(e.g. `openssl rand -base64 32`): placeholders (`replace-with…`, `changeme`, `example`…) and predictable values are refused at start.',
    '',
    '## Which service reads what',
    '',
    `| Variable | ${perService.map((s) => s.service).join(' | ')} |`,
    `|---|${perService.map(() => '---').join('|')}|`,
    ...names.map((name) => {
      const marks = perService.map(({ settings }) => {
        const s = settings.find((x) => x.name === name);
        return s ? (s.required ? 'required' : s.default === null ? 'optional' : `default ${code(s.default)}`) : '';
      });
      return `| \`${name}\` | ${marks.join(' | ')} |`;
    }),
    '',
  ];
  for (const { service, settings } of perService) {
    lines.push(`## ${service}`, '', `\`services/${service}/src/config.ts\``, '', ...table(settings), '');
  }
  lines.push(
    '## Job: create-topics',
    '',
    '`deploy/scripts/create-topics.ts` (the Kubernetes Job `create-topics`, compose service `create-topics`).',
    '',
    ...table(settingsOf(TopicsJobConfigSchema)),
    '',
  );
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rendered = renderConfigReference();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(REFERENCE_PATH, 'utf8');
    } catch {
      /* missing counts as stale */
    }
    if (current !== rendered) {
      console.error('docs/config-reference.md is stale: run `npm run config-reference` and commit the result.');
      process.exit(1);
    }
    console.log('docs/config-reference.md is up to date.');
  } else {
    writeFileSync(REFERENCE_PATH, rendered);
    console.log(`wrote ${REFERENCE_PATH}`);
  }
}
