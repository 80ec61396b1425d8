// The laptop compose file gives each service what its ConfigSchema needs (nothing else), mirroring the dev
// stack recipe; and docs/config-reference.md is what scripts/config-reference.ts generates today (h).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateLocalSecrets, type LocalSecretsOwner } from '@checkout/config';
import { stackEnvironment } from '@checkout/testing';
import { REFERENCE_PATH, renderConfigReference } from '../../scripts/config-reference';
import { REPO, SCHEMAS, requiredKeys } from './helpers';

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  build?: { context: string; dockerfile: string };
}
const compose = parse(readFileSync(join(REPO, 'deploy', 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

/** `${NAME:-default}` as compose resolves it with NAME unset. */
const resolveDefault = (value: string | number) => String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/**
 * A service's environment as its entrypoint builds it: compose's, then its generated secrets file (CHECKOUT_ENV_FILE).
 */
function serviceEnv(service: string): Record<string, string> {
  const spec = compose.services[service];
  const { CHECKOUT_ENV_FILE: file, ...env } = Object.fromEntries(
    Object.entries(spec?.environment ?? {}).map(([k, v]) => [k, resolveDefault(v)]),
  );
  expect(file, `${service} reads its generated secrets`).toBe(`/secrets/${service}.env`);
  return { ...generateLocalSecrets().env[service as LocalSecretsOwner], ...env };
}

describe('deploy/compose.yaml', () => {
  it.each(Object.keys(SCHEMAS))('%s: only settings it reads, every required one, values that parse', (service) => {
    const spec = compose.services[service];
    expect(spec?.command).toEqual([service]);
    expect(spec?.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
    const env = serviceEnv(service);
    const schema = SCHEMAS[service]!;
    expect(Object.keys(env).filter((k) => !(k in schema.shape))).toEqual([]);
    expect(requiredKeys(schema).filter((k) => !(k in env))).toEqual([]);
    const parsed = schema.safeParse(env);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  });

  it('sets what the dev stack recipe sets (testkit/testing stack-env), with container hostnames', () => {
    const recipe = stackEnvironment({
      ports: { gateway: 8080, orders: 4002, sessions: 4003, dispatcher: 4004 },
      mongoUrl: 'mongodb://mongo:27017',
      kafkaBrokers: ['kafka:9092'],
      namePrefix: 'x',
    });
    const pairs = {
      gateway: recipe.gateway,
      orders: recipe.orders,
      sessions: recipe.sessions,
      'webhook-dispatcher': recipe.dispatcher,
    };
    for (const [service, env] of Object.entries(pairs)) {
      const keys = Object.keys(serviceEnv(service));
      expect(
        Object.keys(env).filter((k) => !keys.includes(k)),
        service,
      ).toEqual([]);
    }
  });

  it('publishes every port on loopback only, and gives no secret a default', () => {
    const text = readFileSync(join(REPO, 'deploy', 'compose.yaml'), 'utf8');
    const published = Object.entries(compose.services).flatMap(([name, spec]) =>
      (spec.ports ?? []).map((port) => `${name} ${port}`),
    );
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/ 127\.0\.0\.1:\d+:\d+$/);
    expect(compose.services.gateway?.ports).toEqual(['127.0.0.1:8080:8080', '127.0.0.1:8081:8081']);
    for (const key of [
      'ADMIN_TOKEN',
      'INTERNAL_TOKEN',
      'INTERNAL_CALLERS',
      'PROCESSOR_WEBHOOK_SECRET',
      'PROCESSOR_REFUND_WEBHOOK_SECRET',
      'CSRF_SECRET',
      'ID_DERIVATION_SECRET',
    ]) {
      expect(text, `${key} is generated on the first run, never written in the compose file`).not.toMatch(
        new RegExp(`\\b${key}:`),
      );
    }
    expect(compose.services.secrets?.command).toEqual(['generate-secrets']);
  });

  it('allows private webhook targets on the laptop only (D33), and says so', () => {
    const allowed = resolveDefault(compose.services['webhook-dispatcher']?.environment?.WEBHOOK_ALLOWED_NETWORKS ?? '');
    expect(allowed).toContain('127.0.0.0/8');
    expect(readFileSync(join(REPO, 'deploy', 'compose.yaml'), 'utf8')).toMatch(/LAPTOP ONLY \(D33\)/);
  });

  it('runs the topic job before the services, from the same image', () => {
    expect(compose.services['create-topics']?.command).toEqual(['create-topics']);
    expect(compose.services.kafka?.image).toMatch(/^apache\/kafka:/);
    expect(compose.services.mongo?.image).toBe('mongo:7');
    for (const service of Object.keys(SCHEMAS))
      expect(compose.services[service]?.image).toBe(compose.services['create-topics']?.image);
  });
});

describe('docs/config-reference.md (h)', () => {
  it('is up to date with the ConfigSchemas (regenerate: npm run config-reference)', () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(renderConfigReference());
  });

  it('lists every variable of every service', () => {
    const doc = readFileSync(REFERENCE_PATH, 'utf8');
    for (const schema of Object.values(SCHEMAS))
      for (const key of Object.keys(schema.shape)) expect(doc).toContain(`| \`${key}\` |`);
  });
});
