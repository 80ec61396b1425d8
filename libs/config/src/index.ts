import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SAMPLERS, TRACES_EXPORTERS, type TelemetryConfig } from '@checkout/telemetry';

export * from './build-info';

// Config is parsed once, at start, into a frozen typed object. Only a service's main.ts hands process.env in.

export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<S extends z.ZodType<Record<string, unknown>>>(
  service: string,
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (result.success) {
    const reused = reusedSecrets(service, result.data);
    if (reused.length > 0) throw new ConfigError(service, reused);
  }
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(root)';
      const given = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
      return given === undefined
        ? `${key}: ${issue.message}`
        : `${key}=${JSON.stringify(redactValue(key, given))}: ${issue.message}`;
    });
    throw new ConfigError(service, problems);
  }
  return Object.freeze(result.data);
}

/** Settings whose value is a secret, by name: what every service calls its secrets. */
const SECRET_KEY = /(?:_TOKEN|_SECRET|_PASSWORD)$/;

/**
 * One value in two places (it used to pass every check): two secret settings of this service with
 * the same value (the MongoDB password counts), two callers in INTERNAL_CALLERS with one credential, or this
 * service's own INTERNAL_TOKEN listed as another caller's. A leak of one would then be a leak of both, and a
 * credential shared by two services lets each act as the other. What one process cannot see (a value reused by
 * two services that never meet) is for the deployment: the local stack and compose generate each on its own.
 * Messages name the settings, never the values.
 */
function reusedSecrets(service: string, config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const byValue = new Map<string, string>();
  const note = (key: string, value: unknown) => {
    if (typeof value !== 'string' || value === '') return;
    const first = byValue.get(value);
    if (first !== undefined) problems.push(`${key}: holds the same value as ${first}; generate each secret on its own`);
    else byValue.set(value, key);
  };
  for (const [key, value] of Object.entries(config)) if (SECRET_KEY.test(key)) note(key, value);
  if (typeof config.MONGODB_URL === 'string') {
    const password = /^mongodb(?:\+srv)?:\/\/[^:@/]*:([^@/]*)@/.exec(config.MONGODB_URL)?.[1];
    if (password !== undefined) note('MONGODB_URL (its password)', safeDecode(password));
  }
  const callers = Array.isArray(config.INTERNAL_CALLERS) ? (config.INTERNAL_CALLERS as AcceptedCaller[]) : [];
  const callerOf = new Map<string, string>();
  for (const { caller, tokenSha256 } of callers) {
    const other = callerOf.get(tokenSha256);
    if (other !== undefined && other !== caller)
      problems.push(
        `INTERNAL_CALLERS: ${other} and ${caller} have one credential; each caller needs a token of its own`,
      );
    callerOf.set(tokenSha256, caller);
  }
  if (typeof config.INTERNAL_TOKEN === 'string') {
    const owner = callerOf.get(createHash('sha256').update(config.INTERNAL_TOKEN).digest('hex'));
    if (owner !== undefined && owner !== service)
      problems.push(
        `INTERNAL_TOKEN: is also ${owner}'s credential (INTERNAL_CALLERS); each service needs a token of its own`,
      );
  }
  return problems;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function redactValue(key: string, value: string): string {
  if (/SECRET|TOKEN|PASSWORD|KEY/i.test(key)) return '<redacted>';
  // Credentials inside a URL (mongodb://user:password@host, https://user:token@host).
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:<redacted>@');
}

// Building blocks shared by every service's schema. Each carries .describe() so the config reference
// (docs/config-reference.md) can be generated from the schemas themselves.

const booleanFromEnv = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const env = {
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  boolean: (def: boolean) => booleanFromEnv.default(def),
  positiveInt: (def: number) => z.coerce.number().int().positive().default(def),
  nonNegativeInt: (def: number) => z.coerce.number().int().min(0).default(def),
  url: () => z.url({ protocol: /^https?$/ }),
  list: () =>
    z.string().transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
};

/**
 * Words that make a value a placeholder, not a secret: what example files, tutorials and people typing in a hurry
 * put where a secret belongs (the `*.env.example` placeholders passed every check and would have handed
 * out the admin API and the processor's signature). They count only as whole tokens (see `tokens`), in one case
 * (lower, UPPER or Capitalized), and are at least five letters long: matched as substrings of any case, short
 * words ("todo", "xxxx", "abcdef") turned up by chance in about one random secret in 10⁴. A random token equals one
 * of these with a probability below 10⁻⁸ per value, and needs separators on both sides on top of that.
 */
const PLACEHOLDER_WORDS = new Set([
  'replace',
  'changeme',
  'example',
  'placeholder',
  'dummy',
  'sample',
  'secret',
  'password',
  'passw0rd',
  'letmein',
  'default',
  'qwerty',
  'asdfgh',
  'generate',
  'insert',
  'fillin',
  'redacted',
  'token',
  'internal',
  'xxxxx',
]);
/** Placeholder phrases of short words, as consecutive tokens ("change-me", "CHANGE_ME", "fill in", "your-key"). */
const PLACEHOLDER_PHRASES: readonly (readonly string[])[] = [
  ['change', 'me'],
  ['fill', 'in'],
  ['your', 'key'],
  ['your', 'token'],
  ['put', 'here'],
  ['goes', 'here'],
];

/**
 * The alphanumeric runs of a value, the words of a typed placeholder. Generated secrets (base64, base64url, hex)
 * have few separators (+ / - _ =), so a random token that happens to be a word must also be cut out by separators
 * on both sides, or by the value's ends; which is what keeps their false alarms below 10⁻⁹ per value.
 */
function tokens(value: string): string[] {
  return value.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

/** A token in one case, as people type words: lower, UPPER or Capitalized; random tokens mix cases. */
function wordOf(token: string): string | null {
  return /^(?:[a-z0-9]+|[A-Z0-9]+|[A-Z][a-z0-9]+)$/.test(token) ? token.toLowerCase() : null;
}

/** A run of consecutive characters, up or down ("123456", "abcdef", "987654"): a keyboard's idea of random. */
function isSequence(token: string): boolean {
  if (token.length < 6) return false;
  const step = token.charCodeAt(1) - token.charCodeAt(0);
  if (step !== 1 && step !== -1) return false;
  for (let i = 2; i < token.length; i += 1) if (token.charCodeAt(i) - token.charCodeAt(i - 1) !== step) return false;
  return true;
}

/**
 * Whether `value` is placeholder words glued together or camel-cased ("ReplaceWithThirtyTwoRandomCharactersHere",
 * "changeme1changeme2changeme3changeme4"), which `tokens` sees as one token: its letter runs, cut at digits,
 * separators and at a lower to upper case change, include a placeholder word, and are each a word of three letters
 * or more in one case (lower, UPPER or Capitalized), eight letters at least in all. Both conditions: random
 * base64 is all such runs about once in 10⁵ values, and has a run equal to a placeholder word below once in 10⁶,
 * so together below 10⁻¹¹ per value.
 */
function gluedPlaceholder(value: string): boolean {
  const runs = value
    .split(/[^A-Za-z]+/)
    .filter(Boolean)
    .flatMap((run) => run.split(/(?<=[a-z])(?=[A-Z])/));
  if (!runs.some((run) => PLACEHOLDER_WORDS.has(run.toLowerCase()))) return false;
  const letters = runs.reduce((n, run) => n + run.length, 0);
  return letters >= 8 && runs.every((run) => /^(?:[a-z]{3,}|[A-Z]{3,}|[A-Z][a-z]{2,})$/.test(run));
}

/** Why `value` is a placeholder's shape, or null. Every rule is about whole tokens or the whole value. */
function placeholderShape(value: string): string | null {
  // Template syntax and unexpanded shell substitutions ("$(openssl rand -base64 32)", backquotes): none of these
  // characters is in the base64, base64url or hex alphabets.
  if (/<[^>]*>|\$\{|\{\{|\$\(|`/.test(value)) return 'a template';
  if (gluedPlaceholder(value)) return 'placeholder words glued together';
  const parts = tokens(value);
  const words = parts.map(wordOf);
  for (const word of words) if (word !== null && PLACEHOLDER_WORDS.has(word)) return 'a placeholder word';
  for (const phrase of PLACEHOLDER_PHRASES) {
    for (let i = 0; i + phrase.length <= words.length; i += 1)
      if (phrase.every((part, j) => words[i + j] === part)) return 'a placeholder phrase';
  }
  for (const token of parts) {
    // "xxxxxx", "000000": one character repeated as a whole token; a sequence as a whole token.
    if (token.length >= 6 && new Set(token).size === 1) return 'a repeated character';
    if (isSequence(token)) return 'a sequence';
  }
  // Long runs anywhere: 12 equal characters, or 10 consecutive ones, are below 10⁻⁹ even in 64 random hex digits.
  if (longestRun(value, 0) >= 12) return 'a repeated character';
  if (longestRun(value, 1) >= 10 || longestRun(value, -1) >= 10) return 'a sequence';
  return null;
}

/** The longest run of characters each `step` code points after the one before (0: the same character repeated). */
function longestRun(value: string, step: number): number {
  let longest = value.length > 0 ? 1 : 0;
  let current = longest;
  for (let i = 1; i < value.length; i += 1) {
    current = value.charCodeAt(i) - value.charCodeAt(i - 1) === step ? current + 1 : 1;
    if (current > longest) longest = current;
  }
  return longest;
}

/** Why `value` cannot be a secret, or null when it can. */
export function weakSecretReason(value: string, minLength: number): string | null {
  if (value.length < minLength) return `must be at least ${minLength} characters`;
  if (placeholderShape(value) !== null)
    return 'is a placeholder, not a secret: generate one (e.g. openssl rand -base64 32)';
  // Low entropy: generated secrets (base64, hex) use many distinct characters and more than words of one case
  // or digits alone; typed ones do not.
  if (
    new Set(value).size < 10 ||
    /^[a-z\s._-]+$/.test(value) ||
    /^[A-Z\s._-]+$/.test(value) ||
    /^[0-9]+$/.test(value)
  ) {
    return 'is too predictable for a secret: generate one (e.g. openssl rand -base64 32)';
  }
  return null;
}

/** A secret setting: long, not a placeholder, not guessable. Its value never appears in errors. */
export function secret(minLength = 24) {
  return z.string().superRefine((value, ctx) => {
    const reason = weakSecretReason(value, minLength);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
}

/** A MongoDB connection string; a password in it is held to the rules of a secret, but for its length. */
export function mongoUrl() {
  return z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .superRefine((value, ctx) => {
      const password = /^mongodb(?:\+srv)?:\/\/[^:@/]*:([^@/]*)@/.exec(value)?.[1];
      if (password === undefined) return;
      const reason = weakSecretReason(safeDecode(password), 12);
      if (reason) ctx.addIssue({ code: 'custom', message: `its password ${reason}` });
    });
}

/**
 * The services and jobs that call internal APIs, each with a credential of its own (one shared token
 * let a compromised pod act as any service). Each internal route says which of them may call it.
 */
export const INTERNAL_CALLERS = ['gateway', 'orders', 'sessions', 'webhook-dispatcher', 'dead-letter-replay'] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

export interface AcceptedCaller {
  caller: InternalCaller;
  /** SHA-256 of the caller's INTERNAL_TOKEN, hex: a callee never holds another service's secret. */
  tokenSha256: string;
}

/**
 * OpenTelemetry's standard variables (the SDK environment and the OTLP and Zipkin exporter specifications), for
 * every service. OTEL_TRACES_EXPORTER chooses the exporter: `otlp` (default; a cluster's collector), `zipkin`
 * (straight to a Zipkin: the local stack), `none`. Tracing is on only when the chosen exporter's endpoint is set:
 * unset, nothing is exported and no span is made (a deliberate difference from the specification's default of
 * localhost:4318, so that a deployment without a collector pays nothing). docs/operations.md, "Traces".
 */
/** OpenTelemetry's rule for its variables: an empty value is unset (a manifest can write each one out). */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const telemetryConfigShape = {
  OTEL_SDK_DISABLED: env.boolean(false).describe('true: no tracing at all, whatever else is set'),
  OTEL_SERVICE_NAME: unsetWhenEmpty(z.string().min(1)).describe(
    "The service's name in traces (`service.name`); defaults to the service (gateway, orders…)",
  ),
  OTEL_TRACES_EXPORTER: z
    .preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .enum(TRACES_EXPORTERS, {
          error: (issue) =>
            `unknown traces exporter ${JSON.stringify(issue.input)}: one of ${TRACES_EXPORTERS.join(', ')} (one, not a list)`,
        })
        .default('otlp'),
    )
    .describe(
      'Where spans go: otlp (default) to OTEL_EXPORTER_OTLP_ENDPOINT, zipkin to OTEL_EXPORTER_ZIPKIN_ENDPOINT, none (tracing off)',
    ),
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    "Zipkin's v2 span API (http://127.0.0.1:9411/api/v2/spans); spans go there as JSON when OTEL_TRACES_EXPORTER=zipkin, which requires it",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    'Base URL of an OTLP/HTTP receiver (an OpenTelemetry Collector: http://otel-collector.observability:4318); traces go to <url>/v1/traces as protobuf. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is off',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    'Full URL traces are sent to, when it is not OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces',
  ),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS)
    .default('parentbased_traceidratio')
    .describe(
      "Which traces are kept: parentbased_traceidratio keeps OTEL_TRACES_SAMPLER_ARG of the traces that start here and follows the caller's decision for the others, so a payment is kept or dropped whole across the services",
    ),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe('The ratio of the *traceidratio samplers, 0–1 (1: every trace)'),
  OTEL_RESOURCE_ATTRIBUTES: unsetWhenEmpty(z.string()).describe(
    'Extra resource attributes, key=value,key=value (e.g. deployment.environment.name=production)',
  ),
};

/** What libs/telemetry's startTelemetry takes, from the OTEL_* settings of a service's config. */
export function telemetrySettings(
  service: string,
  config: {
    OTEL_SDK_DISABLED: boolean;
    OTEL_SERVICE_NAME?: string | undefined;
    OTEL_TRACES_EXPORTER?: TelemetryConfig['exporter'];
    OTEL_EXPORTER_ZIPKIN_ENDPOINT?: string | undefined;
    OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
    OTEL_TRACES_SAMPLER: TelemetryConfig['sampler'];
    OTEL_TRACES_SAMPLER_ARG: number;
    OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
  },
): TelemetryConfig {
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const resourceAttributes: Record<string, string> = {};
  for (const pair of (config.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) resourceAttributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  const exporter = config.OTEL_TRACES_EXPORTER ?? 'otlp';
  // Zipkin chosen by name but given nowhere to send: a mistake to report at start, not tracing silently off.
  if (exporter === 'zipkin' && config.OTEL_EXPORTER_ZIPKIN_ENDPOINT === undefined && !config.OTEL_SDK_DISABLED)
    throw new ConfigError(service, [
      "OTEL_EXPORTER_ZIPKIN_ENDPOINT: required with OTEL_TRACES_EXPORTER=zipkin (Zipkin's span API, http://host:9411/api/v2/spans)",
    ]);
  const otlpEndpoint =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base}/v1/traces`);
  return {
    serviceName: config.OTEL_SERVICE_NAME ?? service,
    exporter,
    tracesEndpoint: { otlp: otlpEndpoint, zipkin: config.OTEL_EXPORTER_ZIPKIN_ENDPOINT, none: undefined }[exporter],
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerArg: config.OTEL_TRACES_SAMPLER_ARG,
    disabled: config.OTEL_SDK_DISABLED,
    resourceAttributes,
  };
}

/** Settings of every service. */
export const baseConfigShape = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level'),
  HTTP_HOST: z.string().default('0.0.0.0').describe('Address the HTTP server binds to'),
  MONGODB_URL: mongoUrl().describe('MongoDB connection string (a password in it must be a real secret)'),
  MONGODB_DATABASE: z.string().min(1).describe("Database holding this service's collections"),
  INTERNAL_CALLERS: env
    .list()
    .pipe(
      z
        .array(
          z
            .string()
            .regex(
              new RegExp(`^(${INTERNAL_CALLERS.join('|')}):[0-9a-f]{64}$`),
              `each entry must be <caller>:<sha256 hex of its INTERNAL_TOKEN>, caller one of ${INTERNAL_CALLERS.join(', ')}`,
            )
            .transform((entry): AcceptedCaller => {
              const at = entry.lastIndexOf(':');
              return { caller: entry.slice(0, at) as InternalCaller, tokenSha256: entry.slice(at + 1) };
            }),
        )
        .min(1),
    )
    .describe(
      "Who may call this service's internal API: comma-separated <caller>:<sha256 hex of that caller's INTERNAL_TOKEN>; two entries for one caller while it rotates its token (docs/operations.md). Each internal route admits only the callers it names.",
    ),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000).describe('Time allowed for in-flight work on shutdown'),
  SHUTDOWN_DRAIN_MS: env
    .nonNegativeInt(0)
    .describe(
      "On SIGTERM, how long /readyz answers 503 (and every answer says Connection: close) while the service still serves, before it stops listening: time for the load balancer or Kubernetes endpoints to take it out of rotation, like a preStop sleep. Set it above the load balancer's health-check interval × fall count; 0 stops at once",
    ),
  HTTP_HEADERS_TIMEOUT_MS: env
    .positiveInt(10_000)
    .describe(
      'A client must send all request headers within this time, or gets 408 and a closed connection (slow-client guard)',
    ),
  HTTP_REQUEST_TIMEOUT_MS: env
    .positiveInt(30_000)
    .describe(
      'A client must send the whole request, body included, within this time (at least HTTP_HEADERS_TIMEOUT_MS), or gets 408',
    ),
  ...telemetryConfigShape,
};

/** Settings of a service that calls other services' internal APIs. */
export const internalClientConfigShape = {
  INTERNAL_TOKEN: secret(32).describe(
    "This service's own credential, sent with every internal call it makes; the services it calls list its SHA-256 in their INTERNAL_CALLERS",
  ),
};

/** The listen options every service takes from its config (libs/http listen). */
export function httpTimeouts(config: { HTTP_HEADERS_TIMEOUT_MS: number; HTTP_REQUEST_TIMEOUT_MS: number }): {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
} {
  return { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS };
}

/** Settings of the services that use Kafka. */
export const kafkaConfigShape = {
  KAFKA_BROKERS: env
    .list()
    .pipe(z.array(z.string().regex(/^[^:]+:\d+$/, 'each broker must be host:port')).min(1))
    .describe('Comma-separated Kafka bootstrap brokers (host:port)'),
  KAFKA_CLIENT_ID: z.string().min(1).optional().describe('Kafka client id; defaults to the service name'),
  TOPIC_PREFIX: z
    .string()
    .default('')
    .describe('Prefix for every Kafka topic and consumer group (isolation of tests and environments)'),
  KAFKA_SASL_MECHANISM: z
    .enum(['none', 'scram-sha-256', 'scram-sha-512'])
    .default('none')
    .describe(
      'How this service authenticates to the brokers: none, or SASL SCRAM with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD. Production uses scram-sha-512 with a user per service, whose ACLs allow only its topics and groups (docs/operations.md)',
    ),
  KAFKA_SASL_USERNAME: z.string().min(1).optional().describe('SASL user of this service (required with SCRAM)'),
  KAFKA_SASL_PASSWORD: secret(16).optional().describe('SASL password of this service (required with SCRAM)'),
  KAFKA_TLS: env
    .boolean(false)
    .describe(
      'Connect to the brokers over TLS (SASL_SSL / SSL listeners). Required with SASL SCRAM unless KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY',
    ),
  KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY: env
    .boolean(false)
    .describe(
      'Allows SASL SCRAM over a plaintext connection: only where the network below already encrypts and authenticates every connection (a service mesh with mutual TLS to the brokers). SCRAM proves the password without sending it, but leaves every message readable and an authenticated connection open to takeover by anyone on the path',
    ),
  KAFKA_TLS_CA_FILE: z
    .string()
    .default('')
    .describe(
      "PEM file of the CA that signed the brokers' certificates, when it is not one the system trusts; empty: the system's CAs",
    ),
};

/**
 * SCRAM needs both its user and its password; without SCRAM neither may be set (a likely misconfiguration). And
 * SCRAM goes over TLS (the second audit: it was allowed without): it proves the password, but a plaintext session
 * carries every message (customers' data in session events) in clear and can be taken over once authenticated.
 */
export function checkKafkaSecurity(
  config: {
    KAFKA_SASL_MECHANISM: string;
    KAFKA_SASL_USERNAME?: string | undefined;
    KAFKA_SASL_PASSWORD?: string | undefined;
    KAFKA_TLS: boolean;
    KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY: boolean;
  },
  ctx: z.RefinementCtx,
): void {
  const scram = config.KAFKA_SASL_MECHANISM !== 'none';
  if (scram && !config.KAFKA_TLS && !config.KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY)
    ctx.addIssue({
      code: 'custom',
      path: ['KAFKA_TLS'],
      message: `must be true with KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM} (or KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY=true where the network below encrypts)`,
    });
  for (const key of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const) {
    if (scram && config[key] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `is required with KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM}`,
      });
    if (!scram && config[key] !== undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'is set but KAFKA_SASL_MECHANISM is none' });
  }
}

/** What libs/kafka's createKafka needs to reach and authenticate to the brokers, from a service's config. */
export function kafkaConnection(config: {
  KAFKA_BROKERS: string[];
  KAFKA_SASL_MECHANISM: 'none' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_TLS: boolean;
  KAFKA_TLS_CA_FILE: string;
}): {
  brokers: string[];
  sasl?: { mechanism: 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  tls?: { caFile?: string };
} {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  return {
    brokers: config.KAFKA_BROKERS,
    ...(mechanism !== 'none' &&
      username !== undefined &&
      password !== undefined && { sasl: { mechanism, username, password } }),
    ...(config.KAFKA_TLS && { tls: config.KAFKA_TLS_CA_FILE === '' ? {} : { caFile: config.KAFKA_TLS_CA_FILE } }),
  };
}

export const commonConfigShape = { ...baseConfigShape, ...kafkaConfigShape };

/**
 * The roles a process can take, named alike in every service so that one Deployment per role is one setting
 * away. Each service declares the roles it has; /healthz, /readyz and /metrics are served
 * whatever the roles, so Kubernetes can probe, and Prometheus scrape, a consumer-only pod too.
 */
export const roleSettings = {
  api: (what: string) =>
    env
      .boolean(true)
      .describe(`Role: serve ${what} from this process. /healthz, /readyz and /metrics are served whatever the roles.`),
  consumers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
  sweepers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
};

/** Settings of the services whose collections grow with traffic and are trimmed by a retention sweep. */
export const retentionConfigShape = {
  RETENTION_SWEEP_INTERVAL_MS: env
    .positiveInt(3_600_000)
    .describe(
      'How often the retention sweep deletes records past their retention (sweepers role); docs/operations.md lists what is kept how long',
    ),
};

/** Settings of the services that publish through a transactional outbox. */
export const outboxConfigShape = {
  OUTBOX_SWEEP_INTERVAL_MS: env
    .positiveInt(1_000)
    .describe(
      'How often the outbox relay looks for events a crash left unpublished (the fast path publishes right after each write)',
    ),
};

/** The services and jobs whose secrets a local stack generates (generateLocalSecrets). */
export type LocalSecretsOwner = 'gateway' | 'orders' | 'sessions' | 'webhook-dispatcher' | 'dead-letter-replay';

/** The internal credential of each caller: the services that call others, and the operators' replay job. */
export interface LocalInternalTokens {
  gateway: string;
  sessions: string;
  dispatcher: string;
  deadLetterReplay: string;
}

/** An INTERNAL_CALLERS value: each caller by the SHA-256 of its token(s); several tokens while one rotates. */
export function internalCallersValue(entries: Partial<Record<InternalCaller, string | readonly string[]>>): string {
  return Object.entries(entries)
    .flatMap(([caller, tokens]) =>
      (typeof tokens === 'string' ? [tokens] : (tokens ?? [])).map(
        (token) => `${caller}:${createHash('sha256').update(token).digest('hex')}`,
      ),
    )
    .join(',');
}

/**
 * Every secret setting of a stack, freshly generated, with each INTERNAL_CALLERS naming exactly the callers that
 * service's routes admit: what `npm start`, the tests and the laptop compose stack (its first run)
 * use, so that no stack anywhere runs on a known token. Production generates its own (docs/operations.md).
 */
export function generateLocalSecrets(options: { tokens?: Partial<LocalInternalTokens>; random?: () => string } = {}): {
  tokens: LocalInternalTokens;
  env: Record<LocalSecretsOwner, Record<string, string>>;
} {
  const random = options.random ?? (() => randomBytes(24).toString('base64url'));
  // One processor, a secret per kind of notification: payments (sessions, D27) and refunds (orders, D48), so that a
  // leak of sessions' secret settles no refund.
  const processorWebhookSecret = random();
  const tokens: LocalInternalTokens = {
    gateway: random(),
    sessions: random(),
    dispatcher: random(),
    deadLetterReplay: random(),
    ...options.tokens,
  };
  return {
    tokens,
    env: {
      gateway: {
        ADMIN_TOKEN: random(),
        INTERNAL_TOKEN: tokens.gateway,
        INTERNAL_CALLERS: internalCallersValue({ 'webhook-dispatcher': tokens.dispatcher }),
      },
      orders: {
        INTERNAL_CALLERS: internalCallersValue({ gateway: tokens.gateway, sessions: tokens.sessions }),
        PROCESSOR_REFUND_WEBHOOK_SECRET: random(),
      },
      sessions: {
        INTERNAL_TOKEN: tokens.sessions,
        INTERNAL_CALLERS: internalCallersValue({ gateway: tokens.gateway }),
        PROCESSOR_WEBHOOK_SECRET: processorWebhookSecret,
        CSRF_SECRET: random(),
        ID_DERIVATION_SECRET: random(),
      },
      'webhook-dispatcher': {
        INTERNAL_TOKEN: tokens.dispatcher,
        INTERNAL_CALLERS: internalCallersValue({
          gateway: tokens.gateway,
          'dead-letter-replay': tokens.deadLetterReplay,
        }),
      },
      'dead-letter-replay': { INTERNAL_TOKEN: tokens.deadLetterReplay },
    },
  };
}
