// (e) The Dockerfile's entry points exist, and what it builds runs. No Docker engine is needed: the image's
// build step (deploy/scripts/bundle.ts) runs here, and the bundles it produces are started on this machine's
// Node (20) against the real engines of the test run, exactly as the image's entrypoint starts them. Building
// the image itself is deploy/scripts/build-image.sh (needs an engine; see deploy/README.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createEventProducer, createKafka } from '@checkout/kafka';
import { AdminClient, eventually, newSecret, stackEnvironment } from '@checkout/testing';
import { ALL_TOPICS } from '@checkout/contracts';
import { SCRIPTS, SERVICES, bundle, type BundleResult } from '../scripts/bundle';
import { topicPlan } from '../scripts/create-topics';
import { REPO, SCHEMAS, run } from './helpers';

const dockerfile = readFileSync(join(REPO, 'deploy', 'Dockerfile'), 'utf8');
const entrypoint = readFileSync(join(REPO, 'deploy', 'docker-entrypoint.sh'), 'utf8');

describe('Dockerfile (e)', () => {
  it('SERVICE values are exactly the service directories, each with its src/main.ts', () => {
    const dirs = readdirSync(join(REPO, 'services'))
      .filter((d) => statSync(join(REPO, 'services', d)).isDirectory())
      .sort();
    expect([...SERVICES].sort()).toEqual(dirs);
    for (const service of SERVICES) expect(existsSync(join(REPO, 'services', service, 'src', 'main.ts'))).toBe(true);
    for (const script of SCRIPTS) expect(existsSync(join(REPO, 'deploy', 'scripts', `${script}.ts`))).toBe(true);
    expect(Object.keys(SCHEMAS).sort()).toEqual(dirs);
  });

  it('the files the Dockerfile copies and runs exist, and its stages are what the README promises', () => {
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(\S+) (\S+)$/gm)].map((m) => m[1] as string);
    for (const source of copies.filter((s) => s !== '.')) expect(existsSync(join(REPO, source)), source).toBe(true);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/local\/bin\/checkout-entrypoint"\]$/m);
    expect(dockerfile).toMatch(
      /^COPY --chown=root:root deploy\/docker-entrypoint.sh \/usr\/local\/bin\/checkout-entrypoint$/m,
    );
    expect(statSync(join(REPO, 'deploy', 'docker-entrypoint.sh')).mode & 0o111, 'entrypoint is executable').not.toBe(0);
    expect(entrypoint).toContain('exec node --enable-source-maps "/app/dist/$NAME.mjs"');
    expect(dockerfile).toContain('RUN npx tsx deploy/scripts/bundle.ts --outdir=dist');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    // The workspaces npm ci --omit=dev installs for are the ones whose code is in the bundles.
    const workspaces = [...dockerfile.matchAll(/--workspace=(@checkout\/[\w-]+)/g)].map((m) => m[1]).sort();
    expect(workspaces).toEqual([...SERVICES.map((s) => `@checkout/${s}`), '@checkout/deploy'].sort());
    // EXPOSE and the HEALTHCHECK's fallback ports are the services' PORT defaults.
    const defaults = Object.fromEntries(
      Object.entries(SCHEMAS).map(([s, schema]) => [
        s,
        (schema.shape.PORT as unknown as { parse(v: unknown): number }).parse(undefined),
      ]),
    );
    expect(dockerfile).toContain(`EXPOSE ${SERVICES.map((s) => defaults[s]).join(' ')}`);
    for (const s of SERVICES) expect(dockerfile).toContain(`${s.includes('-') ? `'${s}'` : s}:${defaults[s]}`);
    // The HEALTHCHECK is exec form: valid JSON whose script node can at least compile.
    const healthcheck = /^HEALTHCHECK .*? CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const argv = JSON.parse(healthcheck ?? 'null') as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(() => new Script(argv[2] ?? '')).not.toThrow();
  });

  it('no workspace lists test tooling among its production dependencies (testcontainers was one)', async () => {
    const { stdout } = await run(
      'npm',
      ['ls', '--omit=dev', '--all', '--json', 'testcontainers', '@testcontainers/kafka', '@testcontainers/mongodb'],
      { cwd: REPO },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const tree = JSON.parse(stdout || '{}') as { dependencies?: Record<string, unknown> };
    expect(tree.dependencies ?? {}).toEqual({});
  });

  it('no product package (libs/, services/) depends on the test kit (testkit/) at run time: it never ships', () => {
    const testKits = readdirSync(join(REPO, 'testkit')).map((d) => `@checkout/${d}`);
    expect(testKits).toEqual(expect.arrayContaining(['@checkout/engines', '@checkout/testing']));
    for (const parent of ['libs', 'services'])
      for (const dir of readdirSync(join(REPO, parent))) {
        const pkg = JSON.parse(readFileSync(join(REPO, parent, dir, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
        };
        const shipped = Object.keys(pkg.dependencies ?? {});
        expect(
          shipped.filter((name) => testKits.includes(name)),
          `${parent}/${dir}`,
        ).toEqual([]);
      }
  });

  it('no dependency of a bundled workspace is installed nested under it (the runtime image only has /app/node_modules)', () => {
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const nested = Object.keys(lock.packages).filter((k) =>
      /^(libs|services|deploy)\/([^/]+\/)?node_modules\//.test(k),
    );
    expect(nested, 'the runtime stage copies only the root node_modules; a nested install would be missing').toEqual(
      [],
    );
  });

  it('.dockerignore keeps node_modules, .git, build output and test results out of the context', () => {
    const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['**/node_modules', '.git', '.turbo', 'dist', 'test-results', '.env'])
      expect(ignored).toContain(entry);
  });

  it('every command the compose file and the manifests run is a bundle the image contains', () => {
    const compose = parse(readFileSync(join(REPO, 'deploy', 'compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<string, { command?: string[] }>;
    };
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.command)
        expect([...SERVICES, ...SCRIPTS] as string[], `compose ${name}`).toContain(service.command[0]);
    }
  });
});

/**
 * Third-party packages a workspace package may import at run time: its dependencies and its workspace deps',
 * transitively.
 */
function productionDependencies(workspace: string): Set<string> {
  const dirs = new Map<string, string>();
  for (const parent of ['libs', 'services'])
    for (const d of readdirSync(join(REPO, parent))) dirs.set(`@checkout/${d}`, join(REPO, parent, d));
  dirs.set('@checkout/deploy', join(REPO, 'deploy'));
  const out = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(dirs.get(name) as string, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      if (dep.startsWith('@checkout/')) visit(dep);
      else out.add(dep);
    }
  };
  visit(workspace);
  return out;
}

describe('the bundles the image runs', () => {
  let built: BundleResult;
  const children: ChildProcess[] = [];
  const outdir = join(REPO, 'node_modules', '.cache', `checkout-deploy-test-${process.pid}`);

  beforeAll(async () => {
    // Inside the checkout, so the bundles resolve their external packages from node_modules as in the image.
    mkdirSync(outdir, { recursive: true });
    built = await bundle(outdir);
  }, 120_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(outdir, { recursive: true, force: true });
  });

  it('import only packages that `npm ci --omit=dev` installs for their workspace', () => {
    for (const service of SERVICES) {
      const allowed = productionDependencies(`@checkout/${service}`);
      expect(
        built.externals[`${service}.mjs`]?.filter((p) => !allowed.has(p)),
        service,
      ).toEqual([]);
    }
    const allowed = productionDependencies('@checkout/deploy');
    for (const script of SCRIPTS)
      expect(
        built.externals[`${script}.mjs`]?.filter((p) => !allowed.has(p)),
        script,
      ).toEqual([]);
  });

  it('a bad setting stops a bundled service with the ConfigError message, before any I/O', async () => {
    const result = await run(process.execPath, [join(outdir, 'orders.mjs')], {
      env: { PATH: process.env.PATH ?? '' },
    }).catch((err: { code: number; stderr: string }) => err);
    expect('code' in result && result.code).toBe(1);
    expect(String((result as { stderr: string }).stderr)).toMatch(/orders: invalid configuration[\s\S]*MONGODB_URL/);
  });

  it('create-topics, create-indexes and replay-dead-letter run against the real engines', async () => {
    const prefix = `deploy${randomBytes(4).toString('hex')}`;
    const env = {
      PATH: process.env.PATH ?? '',
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
      MONGODB_URL: process.env.MONGODB_URL ?? '',
      TOPIC_PREFIX: prefix,
      LOG_LEVEL: 'warn',
    };
    expect(env.KAFKA_BROKERS, 'engines from the global setup').not.toBe('');
    const topics = await run(process.execPath, [join(outdir, 'create-topics.mjs')], { env, timeout: 90_000 });
    const lines = topics.stdout.trim().split('\n');
    expect(lines.length).toBe(ALL_TOPICS.length);
    const planned = topicPlan({
      TOPIC_PREFIX: prefix,
      SESSION_EVENTS_PARTITIONS: 12,
      ORDER_EVENTS_PARTITIONS: 6,
      WEBHOOK_RETRY_PARTITIONS: 6,
      DEAD_LETTER_RETENTION_MS: 1,
    });
    for (const spec of planned) expect(lines).toContain(`${spec.topic}\tpartitions=${spec.numPartitions}`);
    expect(planned.find((s) => s.topic.endsWith('checkout.session.events'))?.numPartitions).toBe(12);
    // Idempotent: a second run finds them all.
    await run(process.execPath, [join(outdir, 'create-topics.mjs')], { env, timeout: 90_000 });

    const dbEnv = Object.fromEntries(
      SERVICES.map((s) => [
        `MONGODB_DATABASE_${s.toUpperCase().replace(/-/g, '_')}`,
        `${prefix}_${s.replace(/-/g, '_')}`,
      ]),
    );
    const indexes = await run(process.execPath, [join(outdir, 'create-indexes.mjs')], {
      env: { ...env, ...dbEnv },
      timeout: 90_000,
    });
    for (const s of SERVICES) expect(indexes.stdout).toContain(`${s}\tdatabase=${prefix}_${s.replace(/-/g, '_')}`);

    // Nothing dead-lettered under this prefix: the replay finds nothing and says so.
    const replay = await run(process.execPath, [join(outdir, 'replay-dead-letter.mjs'), '--dry-run'], {
      env: { ...env, DISPATCHER_URL: 'http://127.0.0.1:9', INTERNAL_TOKEN: newSecret() },
      timeout: 90_000,
    });
    expect(replay.stdout).toContain('replayed=0 skipped=0 invalid=0');
  }, 180_000);

  it('the four services start from their bundles on this Node, become ready, a dead-lettered webhook is replayed, and they stop cleanly on SIGTERM', async () => {
    const ports = {
      gateway: await freePort(),
      gatewayAdmin: await freePort(),
      orders: await freePort(),
      sessions: await freePort(),
      dispatcher: await freePort(),
    };
    const namePrefix = `deploy${randomBytes(4).toString('hex')}`;
    const stack = stackEnvironment({
      ports,
      mongoUrl: process.env.MONGODB_URL ?? '',
      kafkaBrokers: (process.env.KAFKA_BROKERS ?? '').split(','),
      namePrefix,
      // Short retry delays so a webhook to a closed port runs out of attempts within seconds.
      webhookRetryDelaysMs: '50,100,150,200',
    });
    const envs: Record<(typeof SERVICES)[number], Record<string, string>> = {
      gateway: stack.gateway,
      orders: stack.orders,
      sessions: stack.sessions,
      'webhook-dispatcher': stack.dispatcher,
    };
    const portOf = {
      gateway: ports.gateway,
      orders: ports.orders,
      sessions: ports.sessions,
      'webhook-dispatcher': ports.dispatcher,
    };
    const logs: Record<string, string> = {};
    for (const service of SERVICES) {
      const child = spawn(process.execPath, ['--enable-source-maps', join(outdir, `${service}.mjs`)], {
        env: { PATH: process.env.PATH ?? '', ...envs[service] },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      logs[service] = '';
      child.stdout?.on('data', (d: Buffer) => (logs[service] += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (logs[service] += d.toString()));
      children.push(child);
    }
    for (const service of SERVICES) {
      const url = `http://127.0.0.1:${portOf[service]}`;
      await waitFor(
        async () => (await fetch(`${url}/readyz`)).status === 200,
        90_000,
        () => `${service} not ready:\n${logs[service]}`,
      );
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The gateway serves /metrics on its operators' listener only.
      const metricsUrl = service === 'gateway' ? stack.adminUrl : url;
      expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toContain('http_requests_total');
    }
    // Through the gateway to orders: the internal wiring (ORDERS_URL, INTERNAL_TOKEN) works in the bundles.
    const unauthorized = await fetch(`http://127.0.0.1:${ports.gateway}/v0/orders`);
    expect(unauthorized.status).toBe(401);

    // A session paid with a callback URL nobody listens on: 5 failed attempts, then the dead-letter topic.
    const hookPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
    const org = await new AdminClient(stack.adminUrl, stack.adminToken).createOrganizationWithKeys('Deploy Test Co');
    const auth = { authorization: `Bearer ${org.testKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${gatewayUrl}/v0/checkout/sessions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        items: [{ name: 'Latte', quantity: 1, unitPrice: 450 }],
        callbackUrl: `http://127.0.0.1:${hookPort}/hook`,
      }),
    });
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
    expect(
      (
        await fetch(`${gatewayUrl}/v0/test_helpers/checkout/sessions/${sessionId}/pay`, {
          method: 'POST',
          headers: auth,
          body: '{}',
        })
      ).status,
    ).toBe(200);
    type EventDetail = { event: { id: string }; deliveries: { id: string; status: string }[] };
    let eventId = '';
    await waitFor(
      async () => {
        const list = (await (
          await fetch(`${gatewayUrl}/v0/events?sessionId=${sessionId}`, { headers: auth })
        ).json()) as { events: { id: string }[] };
        eventId = list.events[0]?.id ?? '';
        if (!eventId) return false;
        const detail = (await (
          await fetch(`${gatewayUrl}/v0/events/${eventId}`, { headers: auth })
        ).json()) as EventDetail;
        return detail.deliveries[0]?.status === 'failed';
      },
      60_000,
      () => `no failed delivery:\n${logs['webhook-dispatcher']}`,
    );
    // Plus a poison message, which the replay must skip rather than choke on.
    const producer = createEventProducer(
      createKafka({ brokers: (process.env.KAFKA_BROKERS ?? '').split(','), clientId: 'deploy-test' }),
    );
    await producer.send([{ topic: `${namePrefix}.webhooks.dead-letter`, key: 'poison', value: 'not json' }]);
    await producer.disconnect();

    const replayEnv = {
      PATH: process.env.PATH ?? '',
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
      TOPIC_PREFIX: namePrefix,
      DISPATCHER_URL: `http://127.0.0.1:${ports.dispatcher}`,
      INTERNAL_TOKEN: stack.internalTokens.deadLetterReplay,
      LOG_LEVEL: 'warn',
    };
    const dry = await run(process.execPath, [join(outdir, 'replay-dead-letter.mjs'), '--dry-run'], {
      env: replayEnv,
      timeout: 90_000,
    });
    expect(dry.stdout).toContain(`would redeliver ${eventId}`);
    // The merchant's endpoint is back: the redelivery succeeds (and so cannot be dead-lettered a second time
    // before the run below, which would give that run something to do).
    const endpoint = createHttpServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => endpoint.listen(hookPort, '127.0.0.1', resolve));
    try {
      const replay = await run(process.execPath, [join(outdir, 'replay-dead-letter.mjs')], {
        env: replayEnv,
        timeout: 90_000,
      });
      expect(replay.stdout).toContain(`redelivered ${eventId}`);
      expect(replay.stdout).toContain('replayed=1 skipped=0 invalid=1');
      await waitFor(
        async () => {
          const after = (await (
            await fetch(`${gatewayUrl}/v0/events/${eventId}`, { headers: auth })
          ).json()) as EventDetail;
          return after.deliveries.length === 2 && after.deliveries.some((d) => d.status === 'succeeded');
        },
        30_000,
        () => `the redelivery did not succeed:\n${logs['webhook-dispatcher']}`,
      );
    } finally {
      await new Promise((resolve) => endpoint.close(resolve));
    }
    // Offsets were committed: a second run has nothing left to do.
    const again = await run(process.execPath, [join(outdir, 'replay-dead-letter.mjs')], {
      env: replayEnv,
      timeout: 90_000,
    });
    expect(again.stdout).toContain('replayed=0 skipped=0 invalid=0');

    const exits = children.map(
      (child) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
    );
    for (const child of children) child.kill('SIGTERM');
    const codes = await Promise.all(exits);
    expect(codes, JSON.stringify(logs)).toEqual(SERVICES.map(() => 0));
  }, 180_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** eventually(), with the service logs added to the failure, since they are the only clue. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  await eventually(check, { deadlineMs: timeoutMs, intervalMs: 250 }).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${describe()}`);
  });
}
