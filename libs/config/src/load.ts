import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { AcceptedCaller } from './internal-callers';
import { safeDecode } from './secrets';

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

function redactValue(key: string, value: string): string {
  if (/SECRET|TOKEN|PASSWORD|KEY/i.test(key)) return '<redacted>';
  // Credentials inside a URL (mongodb://user:password@host, https://user:token@host).
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:<redacted>@');
}
