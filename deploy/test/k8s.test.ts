// Renders the Kubernetes manifests with kustomize (base and every overlay) and checks them against the code:
// every env var is a setting the service reads, every required (and every other) setting is set, the values
// parse with the service's own ConfigSchema, probes hit /healthz and /readyz on the PORT the service listens
// on, D33 holds in every cluster manifest, and each NetworkPolicy admits exactly the traffic the
// architecture lists. No cluster is needed (nor reachable here): these are render-time checks.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TopicsJobConfigSchema } from '../scripts/create-topics';
import { SERVICES, SCRIPTS } from '../scripts/bundle';
import {
  K8S,
  SCHEMAS,
  containersOf,
  effectiveEnv,
  k8sTreeWithSecrets,
  kustomize,
  portNumber,
  render,
  requiredKeys,
  run,
  type K8sObject,
} from './helpers';

const SECRET_KEYS = [
  'INTERNAL_TOKEN',
  'INTERNAL_CALLERS',
  'ADMIN_TOKEN',
  'PROCESSOR_WEBHOOK_SECRET',
  'PROCESSOR_REFUND_WEBHOOK_SECRET',
  'CSRF_SECRET',
  'ID_DERIVATION_SECRET',
  'KAFKA_SASL_PASSWORD',
  'MONGODB_URL',
];

let tree: string;
let examplesTree: string;
const rendered: Record<'base' | 'staging' | 'production', K8sObject[]> = { base: [], staging: [], production: [] };
/** The overlays rendered with the committed *.env.example as they are: what a careless operator would deploy. */
const withExamples: Record<'staging' | 'production', K8sObject[]> = { staging: [], production: [] };

beforeAll(async () => {
  tree = k8sTreeWithSecrets('generated');
  examplesTree = k8sTreeWithSecrets('examples');
  rendered.base = await render(join(K8S, 'base'));
  rendered.staging = await render(join(tree, 'overlays', 'staging'));
  rendered.production = await render(join(tree, 'overlays', 'production'));
  withExamples.staging = await render(join(examplesTree, 'overlays', 'staging'));
  withExamples.production = await render(join(examplesTree, 'overlays', 'production'));
}, 600_000);

afterAll(() => {
  for (const dir of [tree, examplesTree]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const variants = ['base', 'staging', 'production'] as const;
const workloads = (objects: readonly K8sObject[]) => objects.filter((o) => o.kind === 'Deployment');
const jobs = (objects: readonly K8sObject[]) => objects.filter((o) => o.kind === 'Job');
const find = (objects: readonly K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is not rendered`);
  return found;
};
/** The service a container runs: the image's entry point takes it as the first argument. */
const serviceOf = (args: string[] | undefined) => {
  const service = args?.[0];
  if (!service || !(service in SCHEMAS))
    throw new Error(`container args ${JSON.stringify(args)} do not name a service`);
  return service;
};

describe('kustomize build (a, b)', () => {
  it('kustomize is installed by scripts/ensure-kustomize.sh and renders base, staging and production', async () => {
    const bin = await kustomize();
    const { stdout } = await run(bin, ['version']);
    expect(stdout).toMatch(/v5\./);
    for (const variant of variants) {
      const kinds = new Set(rendered[variant].map((o) => o.kind));
      for (const kind of [
        'Deployment',
        'Service',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'NetworkPolicy',
        'ConfigMap',
        'Secret',
        'Job',
      ])
        expect(kinds, `${variant} renders a ${kind}`).toContain(kind);
      for (const service of SERVICES) {
        for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'NetworkPolicy'])
          find(rendered[variant], kind, service);
      }
      find(rendered[variant], 'Job', 'create-topics');
      find(rendered[variant], 'Job', 'create-indexes');
    }
  });

  it('overlays do not render from the checkout without their secret env files (fail closed)', async () => {
    for (const overlay of ['staging', 'production']) {
      const secrets = join(K8S, 'overlays', overlay, 'secrets');
      // Someone's local real secrets: nothing to prove here.
      if (readdirSync(secrets).some((f) => f.endsWith('.env'))) continue;
      await expect(render(join(K8S, 'overlays', overlay))).rejects.toThrow();
    }
  });

  it('base secrets are placeholders the services refuse; overlays replace every one of them', () => {
    for (const secret of rendered.base.filter((o) => o.kind === 'Secret')) {
      for (const [key, value] of Object.entries(secret.data ?? {})) {
        expect(Buffer.from(value, 'base64').toString(), `${secret.metadata.name}.${key}`).toMatch(/^CHANGE-ME/);
      }
    }
    for (const variant of ['staging', 'production'] as const) {
      for (const secret of rendered[variant].filter((o) => o.kind === 'Secret')) {
        for (const [key, value] of Object.entries(secret.data ?? {}))
          expect(Buffer.from(value, 'base64').toString(), `${variant} ${secret.metadata.name}.${key}`).not.toMatch(
            /CHANGE-ME/,
          );
      }
    }
  });
});

describe('the committed secret examples', () => {
  it.each(['staging', 'production'] as const)(
    '%s: copied unchanged, every secret in them is refused, so no pod starts on a placeholder',
    (variant) => {
      const objects = withExamples[variant];
      for (const deployment of workloads(objects)) {
        for (const container of containersOf(deployment)) {
          const env = effectiveEnv(objects, container);
          const result = SCHEMAS[serviceOf(container.args)]!.safeParse(env);
          const refused = result.success ? [] : result.error.issues.map((i) => String(i.path[0]));
          const secretsGiven = SECRET_KEYS.filter((k) => k in env);
          expect(secretsGiven.length, `${variant} ${deployment.metadata.name} has secrets`).toBeGreaterThan(0);
          expect(
            secretsGiven.filter((k) => !refused.includes(k)),
            `${variant} ${deployment.metadata.name}: example secrets that would be accepted`,
          ).toEqual([]);
        }
      }
      const topics = effectiveEnv(objects, containersOf(find(objects, 'Job', 'create-topics'))[0]!);
      expect(TopicsJobConfigSchema.safeParse(topics).success, 'create-topics with the example password').toBe(false);
    },
  );
});

describe('environment of every container (c)', () => {
  it.each(variants)(
    '%s: every variable is read by the service, every setting is set, and the values parse',
    (variant) => {
      const objects = rendered[variant];
      for (const deployment of workloads(objects)) {
        for (const container of containersOf(deployment)) {
          const service = serviceOf(container.args);
          const schema = SCHEMAS[service]!;
          const env = effectiveEnv(objects, container);
          const known = Object.keys(schema.shape);
          const where = `${variant} Deployment ${deployment.metadata.name}`;
          expect(
            Object.keys(env).filter((k) => !known.includes(k)),
            `${where}: variables ${service} does not read`,
          ).toEqual([]);
          expect(
            requiredKeys(schema).filter((k) => !(k in env)),
            `${where}: required settings missing`,
          ).toEqual([]);
          // "ConfigMaps/Secrets for EVERY setting": defaults are written out too, so the manifest is the whole truth.
          expect(
            known.filter((k) => !(k in env)),
            `${where}: settings left to defaults`,
          ).toEqual([]);
          // Secrets come from Secrets, never from ConfigMaps.
          const fromConfigMaps = (container.envFrom ?? [])
            .filter((s) => s.configMapRef)
            .flatMap((s) => Object.keys(find(objects, 'ConfigMap', s.configMapRef!.name).data ?? {}));
          expect(
            fromConfigMaps.filter((k) => SECRET_KEYS.includes(k)),
            `${where}: secrets in a ConfigMap`,
          ).toEqual([]);
          const result = schema.safeParse(env);
          const problems = result.success ? [] : result.error.issues.map((i) => String(i.path[0]));
          if (variant === 'base') {
            expect(
              problems.filter((k) => !SECRET_KEYS.includes(k)),
              `${where}: invalid non-secret values`,
            ).toEqual([]);
            // …and every placeholder secret is one the service refuses, so a forgotten secret cannot start a pod.
            expect(
              SECRET_KEYS.filter((k) => k in env && !problems.includes(k)),
              `${where}: placeholder secrets that would be accepted`,
            ).toEqual([]);
          } else
            expect(
              result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
              `${where}: config does not parse`,
            ).toEqual([]);
        }
      }
    },
  );

  it.each(variants)('%s: the jobs get exactly the settings their scripts read', (variant) => {
    const objects = rendered[variant];
    const topics = containersOf(find(objects, 'Job', 'create-topics'))[0]!;
    expect(topics.args).toEqual(['create-topics']);
    const topicsEnv = effectiveEnv(objects, topics);
    expect(Object.keys(topicsEnv).filter((k) => !(k in TopicsJobConfigSchema.shape))).toEqual([]);
    const topicsParsed = TopicsJobConfigSchema.safeParse(topicsEnv);
    const topicsProblems = topicsParsed.success ? [] : topicsParsed.error.issues.map((i) => String(i.path[0]));
    // Base holds a placeholder password, which must be refused; the overlays' generated one parses.
    expect(topicsProblems).toEqual(variant === 'base' ? ['KAFKA_SASL_PASSWORD'] : []);
    if (variant === 'production') expect(topicsEnv.KAFKA_REPLICATION_FACTOR).toBe('3');
    if (variant === 'production') expect(topicsEnv.KAFKA_MIN_INSYNC_REPLICAS).toBe('2');

    const indexes = containersOf(find(objects, 'Job', 'create-indexes'))[0]!;
    expect(indexes.args).toEqual(['create-indexes']);
    const suffixes = SERVICES.map((s) => s.toUpperCase().replace(/-/g, '_'));
    expect(Object.keys(effectiveEnv(objects, indexes)).sort()).toEqual(
      suffixes.flatMap((s) => [`MONGODB_URL_${s}`, `MONGODB_DATABASE_${s}`]).sort(),
    );
    for (const job of jobs(objects)) expect(SCRIPTS as readonly string[]).toContain(containersOf(job)[0]?.args?.[0]);
  });
});

describe('probes, ports and pod hardening (d)', () => {
  it.each(variants)('%s: liveness /healthz and readiness /readyz on the container port that equals PORT', (variant) => {
    const objects = rendered[variant];
    for (const deployment of workloads(objects)) {
      const where = `${variant} ${deployment.metadata.name}`;
      for (const container of containersOf(deployment)) {
        const env = effectiveEnv(objects, container);
        const port = Number(env.PORT);
        // The gateway has a second, operators' listener; every other service one port.
        expect(
          container.ports?.map((p) => p.containerPort),
          where,
        ).toEqual(env.ADMIN_PORT === undefined ? [port] : [port, Number(env.ADMIN_PORT)]);
        expect(container.livenessProbe?.httpGet?.path, where).toBe('/healthz');
        expect(container.readinessProbe?.httpGet?.path, where).toBe('/readyz');
        expect(container.startupProbe?.httpGet?.path ?? '/healthz', where).toBe('/healthz');
        for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
          if (probe) expect(portNumber(container, probe.httpGet?.port), where).toBe(port);
        }
        expect(container.securityContext?.readOnlyRootFilesystem, where).toBe(true);
        expect(container.securityContext?.allowPrivilegeEscalation, where).toBe(false);
        expect(
          container.resources?.requests?.cpu &&
            container.resources.requests.memory &&
            container.resources.limits?.memory,
          where,
        ).toBeTruthy();
      }
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot, where).toBe(true);
      // The Service in front of it (if any) targets that same port; the gateway's internal Service, its admin port.
      const container = containersOf(deployment)[0]!;
      const env = effectiveEnv(objects, container);
      for (const [name, port] of [
        [deployment.metadata.name, env.PORT],
        [`${deployment.metadata.name}-internal`, env.ADMIN_PORT],
      ] as const) {
        const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === name);
        if (!service || port === undefined) continue;
        for (const p of service.spec.ports as { port: number; targetPort: string | number }[]) {
          expect(portNumber(container, p.targetPort), `${where} Service ${name} targetPort`).toBe(Number(port));
        }
        expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      }
      if (env.ADMIN_PORT !== undefined) {
        // The public Service never exposes the operators' listener.
        const publicPorts = (
          find(objects, 'Service', deployment.metadata.name).spec.ports as { targetPort: string | number }[]
        ).map((p) => portNumber(container, p.targetPort));
        expect(publicPorts, `${where}: public Service ports`).toEqual([Number(env.PORT)]);
      }
      const hpa = find(objects, 'HorizontalPodAutoscaler', deployment.metadata.name);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
      expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
      expect(find(objects, 'PodDisruptionBudget', deployment.metadata.name).spec.selector.matchLabels).toEqual(
        deployment.spec.selector.matchLabels,
      );
    }
  });
});

describe('whose X-Forwarded-For the gateway believes (the second audit)', () => {
  it.each(variants)(
    '%s: TRUSTED_PROXIES names only what the deployment names: nothing in base, no range wider than a /24 (IPv4) or /64 (IPv6) in an overlay',
    (variant) => {
      const objects = rendered[variant];
      const gateways = workloads(objects).flatMap((d) =>
        containersOf(d).filter((c) => serviceOf(c.args) === 'gateway'),
      );
      expect(gateways.length).toBeGreaterThan(0);
      for (const container of gateways) {
        const entries = (effectiveEnv(objects, container).TRUSTED_PROXIES ?? '')
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== '');
        if (variant === 'base') expect(entries).toEqual([]);
        for (const entry of entries) {
          const [address = '', prefix] = entry.split('/');
          const bits = prefix === undefined ? (address.includes(':') ? 128 : 32) : Number(prefix);
          expect(bits, `${variant}: ${entry}`).toBeGreaterThanOrEqual(address.includes(':') ? 64 : 24);
        }
      }
    },
  );
});

describe('D33 and the dispatcher split (f)', () => {
  it.each(variants)('%s: WEBHOOK_ALLOWED_NETWORKS is empty or absent for every dispatcher container', (variant) => {
    const objects = rendered[variant];
    const dispatchers = workloads(objects).flatMap((d) =>
      containersOf(d).filter((c) => serviceOf(c.args) === 'webhook-dispatcher'),
    );
    expect(dispatchers.length).toBeGreaterThan(0);
    for (const container of dispatchers)
      expect(effectiveEnv(objects, container).WEBHOOK_ALLOWED_NETWORKS ?? '').toBe('');
  });

  it('production runs consumer pods and events-API pods apart', () => {
    const objects = rendered.production;
    const api = effectiveEnv(objects, containersOf(find(objects, 'Deployment', 'webhook-dispatcher'))[0]!);
    const consumer = effectiveEnv(
      objects,
      containersOf(find(objects, 'Deployment', 'webhook-dispatcher-consumer'))[0]!,
    );
    expect([api.API_ENABLED, api.CONSUMERS_ENABLED, api.SWEEPERS_ENABLED]).toEqual(['true', 'false', 'false']);
    expect([consumer.API_ENABLED, consumer.CONSUMERS_ENABLED, consumer.SWEEPERS_ENABLED]).toEqual([
      'false',
      'true',
      'true',
    ]);
    // The Service (events API, called by the gateway) selects only the API pods.
    expect(find(objects, 'Service', 'webhook-dispatcher').spec.selector).toEqual({
      'app.kubernetes.io/name': 'webhook-dispatcher',
    });
    expect(
      find(objects, 'Deployment', 'webhook-dispatcher-consumer').spec.template.metadata.labels[
        'app.kubernetes.io/name'
      ],
    ).toBe('webhook-dispatcher-consumer');
    for (const name of ['gateway', 'orders', 'sessions'])
      expect(find(objects, 'HorizontalPodAutoscaler', name).spec.minReplicas).toBeGreaterThanOrEqual(3);
  });

  // docs/operations.md, "Capacity": partitions are planned for the consumers' largest HPA bound, and every service
  // creates its topics with the count the create-topics job plans, so a recreated environment matches.
  it.each(variants)("%s: no consumer Deployment's maxReplicas exceeds its topics' partitions", (variant) => {
    const objects = rendered[variant];
    const topics = effectiveEnv(objects, containersOf(find(objects, 'Job', 'create-topics'))[0]!);
    const sessionEvents = Number(topics.SESSION_EVENTS_PARTITIONS);
    const orderEvents = Number(topics.ORDER_EVENTS_PARTITIONS);
    const max = (name: string) => find(objects, 'HorizontalPodAutoscaler', name).spec.maxReplicas as number;
    // Sessions and orders pods serve the API too, so more of them than partitions still work; the consumer pods do
    // nothing else, so production's share every busy topic's partitions.
    const consumer = variant === 'production' ? 'webhook-dispatcher-consumer' : 'webhook-dispatcher';
    expect(max(consumer)).toBeLessThanOrEqual(
      variant === 'production' ? Math.min(sessionEvents, orderEvents) : sessionEvents,
    );
    const settingsOf = (name: string) => effectiveEnv(objects, containersOf(find(objects, 'Deployment', name))[0]!);
    for (const name of ['sessions', consumer])
      expect(settingsOf(name).SESSION_EVENTS_PARTITIONS, name).toBe(topics.SESSION_EVENTS_PARTITIONS);
    expect(settingsOf('orders').ORDER_EVENTS_PARTITIONS).toBe(topics.ORDER_EVENTS_PARTITIONS);
    expect(settingsOf(consumer).WEBHOOK_RETRY_PARTITIONS).toBe(topics.WEBHOOK_RETRY_PARTITIONS);
  });
});

describe("D43: the rate limit's replica share", () => {
  it.each(variants)("%s: GATEWAY_REPLICAS equals the gateway HPA's minReplicas", (variant) => {
    const objects = rendered[variant];
    const env = effectiveEnv(objects, containersOf(find(objects, 'Deployment', 'gateway'))[0]!);
    expect(Number(env.GATEWAY_REPLICAS)).toBe(find(objects, 'HorizontalPodAutoscaler', 'gateway').spec.minReplicas);
  });
});

// ---- (g) NetworkPolicies: each admits exactly this, nothing more -----------------------------------------------
const DNS = 'ns:kube-system/pod:k8s-app=kube-dns -> UDP/53,TCP/53';
const MONGO = 'ns:mongodb -> TCP/27017';
const KAFKA = 'ns:kafka -> TCP/9092';
const MONITORING = (port: number) => `ns:monitoring -> TCP/${port}`;
/** Traces to the OpenTelemetry Collector (deploy/k8s/observability): every service exports OTLP/HTTP there. */
const OTLP = 'ns:observability/pod:otel-collector -> TCP/4318';
const INTERNET =
  'ip:0.0.0.0/0!10.0.0.0/8,100.64.0.0/10,127.0.0.0/8,169.254.0.0/16,172.16.0.0/12,192.168.0.0/16+ip:::/0!::1/128,fc00::/7,fe80::/10 -> all ports';

const BASE_POLICIES: Record<string, { selects: string; ingress: string[]; egress: string[] }> = {
  gateway: {
    selects: 'gateway',
    ingress: ['any -> TCP/8080', 'pod:webhook-dispatcher+pod:webhook-dispatcher-consumer+ns:monitoring -> TCP/8081'],
    egress: [
      'pod:orders -> TCP/4002',
      'pod:sessions -> TCP/4003',
      'pod:webhook-dispatcher -> TCP/4004',
      MONGO,
      DNS,
      OTLP,
    ],
  },
  orders: {
    selects: 'orders',
    ingress: ['pod:gateway+pod:sessions -> TCP/4002', MONITORING(4002)],
    egress: [MONGO, KAFKA, DNS, OTLP],
  },
  sessions: {
    selects: 'sessions',
    ingress: ['pod:gateway -> TCP/4003', MONITORING(4003)],
    egress: ['pod:orders -> TCP/4002', MONGO, KAFKA, DNS, OTLP],
  },
  'webhook-dispatcher': {
    selects: 'webhook-dispatcher',
    ingress: ['pod:gateway -> TCP/4004', MONITORING(4004)],
    egress: ['pod:gateway -> TCP/8081', MONGO, KAFKA, DNS, INTERNET, OTLP],
  },
  'checkout-jobs': {
    selects: 'checkout-job',
    ingress: [],
    egress: ['pod:webhook-dispatcher -> TCP/4004', MONGO, KAFKA, DNS],
  },
};
const PRODUCTION_POLICIES: Record<string, { selects: string; ingress: string[]; egress: string[] }> = {
  ...BASE_POLICIES,
  'webhook-dispatcher': {
    ...BASE_POLICIES['webhook-dispatcher']!,
    egress: ['pod:gateway -> TCP/8081', MONGO, KAFKA, DNS, OTLP],
  },
  'webhook-dispatcher-consumer': {
    selects: 'webhook-dispatcher-consumer',
    ingress: [MONITORING(4004)],
    egress: ['pod:gateway -> TCP/8081', MONGO, KAFKA, DNS, INTERNET, OTLP],
  },
};

interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { protocol?: string; port?: number }[];
}

function peerString(peer: Peer): string {
  if (peer.ipBlock)
    return `ip:${peer.ipBlock.cidr}${peer.ipBlock.except ? `!${[...peer.ipBlock.except].sort().join(',')}` : ''}`;
  const labels = (sel: { matchLabels?: Record<string, string> } | undefined) => Object.entries(sel?.matchLabels ?? {});
  const pods = labels(peer.podSelector).map(([k, v]) => (k === 'app.kubernetes.io/name' ? v : `${k}=${v}`));
  const namespaces = labels(peer.namespaceSelector).map(([k, v]) =>
    k === 'kubernetes.io/metadata.name' ? v : `${k}=${v}`,
  );
  if (peer.namespaceSelector && namespaces.length === 0) return 'ns:*'; // every namespace: must never appear
  return [namespaces.length ? `ns:${namespaces.join(',')}` : '', pods.length ? `pod:${pods.join(',')}` : '']
    .filter(Boolean)
    .join('/');
}

function ruleString(rule: Rule, direction: 'from' | 'to'): string {
  const peers = (rule[direction] ?? []).map(peerString);
  const ports = (rule.ports ?? []).map((p) => `${p.protocol ?? 'TCP'}/${p.port ?? '*'}`);
  return `${peers.join('+') || 'any'} -> ${ports.join(',') || 'all ports'}`;
}

describe('NetworkPolicies admit only what the architecture lists (g)', () => {
  it.each(variants)('%s', (variant) => {
    const objects = rendered[variant];
    const expected = variant === 'production' ? PRODUCTION_POLICIES : BASE_POLICIES;
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = find(objects, 'NetworkPolicy', 'default-deny');
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    expect(
      policies
        .map((p) => p.metadata.name)
        .filter((n) => n !== 'default-deny')
        .sort(),
    ).toEqual(Object.keys(expected).sort());
    for (const policy of policies.filter((p) => p.metadata.name !== 'default-deny')) {
      const want = expected[policy.metadata.name]!;
      const where = `${variant} NetworkPolicy ${policy.metadata.name}`;
      expect(policy.spec.podSelector, where).toEqual({ matchLabels: { 'app.kubernetes.io/name': want.selects } });
      expect(policy.spec.policyTypes, where).toEqual(['Ingress', 'Egress']);
      expect(
        ((policy.spec.ingress ?? []) as Rule[]).map((r) => ruleString(r, 'from')).sort(),
        `${where} ingress`,
      ).toEqual([...want.ingress].sort());
      expect(((policy.spec.egress ?? []) as Rule[]).map((r) => ruleString(r, 'to')).sort(), `${where} egress`).toEqual(
        [...want.egress].sort(),
      );
    }
    // Every pod is covered by its own policy (beyond default-deny), and only the gateway takes traffic from anywhere.
    for (const workload of [...workloads(objects), ...jobs(objects)]) {
      const name = workload.spec.template.metadata.labels['app.kubernetes.io/name'];
      expect(
        Object.values(expected).some((p) => p.selects === name),
        `policy for ${name}`,
      ).toBe(true);
    }
    const open = Object.entries(expected).filter(([, p]) => p.ingress.some((r) => r.startsWith('any ')));
    expect(open.map(([n]) => n)).toEqual(['gateway']);
  });
});

it('every overlay directory is checked here', () => {
  expect(
    readdirSync(join(K8S, 'overlays'))
      .filter((d) => existsSync(join(K8S, 'overlays', d, 'kustomization.yaml')))
      .sort(),
  ).toEqual(['production', 'staging']);
});

// ---- (h) Where the collector goes: deploy/k8s/observability -----------------------------------------------------
describe('the OpenTelemetry Collector the services send traces to', () => {
  it('renders a collector Service at the address every service is given, receiving OTLP/HTTP on that port', async () => {
    const objects = await render(join(K8S, 'observability'));
    const service = find(objects, 'Service', 'otel-collector');
    expect((service.metadata as { namespace?: string }).namespace).toBe('observability');
    expect(service.spec.ports).toEqual([{ name: 'otlp-http', port: 4318, targetPort: 'otlp-http' }]);
    const endpoint = new URL(
      effectiveEnv(rendered.production, containersOf(find(rendered.production, 'Deployment', 'orders'))[0]!)
        .OTEL_EXPORTER_OTLP_ENDPOINT!,
    );
    expect(`${endpoint.hostname}:${endpoint.port}`).toBe('otel-collector.observability.svc:4318');
    const deployment = find(objects, 'Deployment', 'otel-collector');
    const [container] = containersOf(deployment);
    expect(container!.ports).toContainEqual({ name: 'otlp-http', containerPort: 4318 });
    const configMap = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('otel-collector-config'),
    );
    const config = parseYaml(configMap?.data?.['collector.yaml'] ?? '') as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      service: { pipelines: { traces: { receivers: string[] } } };
    };
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(config.service.pipelines.traces.receivers).toEqual(['otlp']);
    // Its policy admits the checkout namespace on that port only.
    const policy = find(objects, 'NetworkPolicy', 'otel-collector');
    expect(((policy.spec.ingress ?? []) as Rule[]).map((r) => ruleString(r, 'from'))).toEqual([
      'ns:checkout -> TCP/4318',
    ]);
  });
});
