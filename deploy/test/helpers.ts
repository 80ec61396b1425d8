// Shared by the deploy checks: kustomize from the project's tool cache, rendering, and resolving the
// environment a rendered container really gets (env + envFrom through ConfigMaps and Secrets).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { generateLocalSecrets } from '@checkout/config';
import { settingsOf } from '../../scripts/config-reference';
import { ConfigSchema as gateway } from '@checkout/gateway/config';
import { ConfigSchema as orders } from '@checkout/orders/config';
import { ConfigSchema as sessions } from '@checkout/sessions/config';
import { ConfigSchema as dispatcher } from '@checkout/webhook-dispatcher/config';

export const run = promisify(execFile);
export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const K8S = join(REPO, 'deploy', 'k8s');

type AnySchema = z.ZodObject<z.ZodRawShape>;
export const SCHEMAS: Record<string, AnySchema> = {
  gateway: gateway,
  orders: orders,
  sessions: sessions,
  'webhook-dispatcher': dispatcher,
};

/** Keys an operator must set: no default and not optional (zod 4: optionality on input). */
export function requiredKeys(schema: AnySchema): string[] {
  return settingsOf(schema)
    .filter((s) => s.required)
    .map((s) => s.name);
}

let kustomizePath: Promise<string> | undefined;
/** scripts/ensure-kustomize.sh: installs kustomize into the tool cache on first use and prints its path. */
export function kustomize(): Promise<string> {
  kustomizePath ??= run('bash', [join(REPO, 'scripts', 'ensure-kustomize.sh')], {
    timeout: 600_000,
    maxBuffer: 10 * 1024 * 1024,
  }).then(({ stdout }) => {
    const path = stdout.trim().split('\n').pop() ?? '';
    if (!existsSync(path)) throw new Error(`ensure-kustomize.sh printed ${JSON.stringify(stdout)}`);
    return path;
  });
  return kustomizePath;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Manifests are checked structurally; the tests narrow what they read.
  spec?: any;
  data?: Record<string, string>;
}

export async function render(dir: string): Promise<K8sObject[]> {
  const bin = await kustomize();
  const { stdout } = await run(bin, ['build', dir], { maxBuffer: 20 * 1024 * 1024 });
  return parseAllDocuments(stdout).map((doc) => {
    const [error] = doc.errors;
    if (error) throw error;
    return doc.toJSON() as K8sObject;
  });
}

/**
 * The value an operator would put where an example has a placeholder: generated secrets, with each service's
 * INTERNAL_TOKEN and INTERNAL_CALLERS consistent across the overlay (generateLocalSecrets), and a real password in
 * MONGODB_URL.
 */
function filledLine(line: string, owner: string, generated: ReturnType<typeof generateLocalSecrets>['env']): string {
  const match = /^([A-Z_]+)=(.*)$/.exec(line);
  if (!match) return line;
  const [, key = '', value = ''] = match;
  const mine = (generated as Record<string, Record<string, string>>)[owner] ?? {};
  if (mine[key] !== undefined) return `${key}=${mine[key]}`;
  if (key === 'MONGODB_URL')
    return `${key}=${value.replace('REPLACE-PASSWORD', randomBytes(18).toString('base64url'))}`;
  return `${key}=${randomBytes(24).toString('base64url')}`;
}

/**
 * A copy of deploy/k8s whose overlays have their secret env files (the real files are never in git, so the
 * overlays cannot render from the checkout by design): the committed *.env.example as they are (`examples`: what a
 * careless operator deploys, which every service must refuse), or with every value an operator would
 * generate (`generated`).
 */
export function k8sTreeWithSecrets(fill: 'examples' | 'generated'): string {
  const root = mkdtempSync(join(tmpdir(), 'checkout-k8s-'));
  cpSync(K8S, root, { recursive: true });
  for (const overlay of readdirSync(join(root, 'overlays'))) {
    const secrets = join(root, 'overlays', overlay, 'secrets');
    if (!existsSync(secrets)) continue;
    const generated = generateLocalSecrets().env;
    for (const file of readdirSync(secrets)) {
      if (!file.endsWith('.env.example')) continue;
      const target = join(secrets, file.replace(/\.example$/, ''));
      if (fill === 'examples') copyFileSync(join(secrets, file), target);
      else {
        const owner = file.replace(/\.env\.example$/, '');
        writeFileSync(
          target,
          readFileSync(join(secrets, file), 'utf8')
            .split('\n')
            .map((line) => filledLine(line, owner, generated))
            .join('\n'),
        );
      }
    }
  }
  return root;
}

export interface ContainerSpec {
  name: string;
  args?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { configMapKeyRef?: { name: string; key: string }; secretKeyRef?: { name: string; key: string } };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export function containersOf(obj: K8sObject): ContainerSpec[] {
  return (obj.spec?.template?.spec?.containers ?? []) as ContainerSpec[];
}

function dataOf(objects: readonly K8sObject[], kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is referenced but not rendered`);
  const data = found.data ?? {};
  return kind === 'Secret'
    ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))
    : { ...data };
}

/** The environment the container gets, as Kubernetes builds it: envFrom in order, then env (which wins). */
export function effectiveEnv(objects: readonly K8sObject[], container: ContainerSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, dataOf(objects, 'ConfigMap', source.configMapRef.name));
    if (source.secretRef) Object.assign(env, dataOf(objects, 'Secret', source.secretRef.name));
  }
  for (const item of container.env ?? []) {
    const ref = item.valueFrom?.configMapKeyRef ?? item.valueFrom?.secretKeyRef;
    if (ref) {
      const data = dataOf(objects, item.valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret', ref.name);
      if (!(ref.key in data)) throw new Error(`${item.name}: key ${ref.key} is not in ${ref.name}`);
      env[item.name] = data[ref.key] as string;
    } else {
      env[item.name] = item.value ?? '';
    }
  }
  return env;
}

export function portNumber(container: ContainerSpec, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}
