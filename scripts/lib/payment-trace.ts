// `npm run hops -- --run`: the same card payment counted call by call, as it runs. The orders and sessions apps
// of the measured tree start in this process on real engines; one hosted-page card payment is posted (its page
// read first, for the CSRF cookie and token), and V8's precise coverage (call counts) says which functions of the
// repository's src files ran during that POST and how often. The gateway is not in the process: what it adds is
// the pass-through (the static walk counts it).
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { internalCallersValue } from '@checkout/config';
import { createLogger } from '@checkout/logger';

export interface TracedFunction {
  file: string;
  name: string;
  /** V8's count: each call, and for an async function each resumption after an await as well. */
  calls: number;
}

interface App {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

interface ServiceModules {
  buildApp: (config: unknown, logger: unknown, options?: unknown) => App;
  parseConfig: (env: Record<string, string>) => unknown;
}

async function service(root: string, name: string): Promise<ServiceModules> {
  const app = (await import(pathToFileURL(join(root, 'services', name, 'src/app.ts')).href)) as ServiceModules;
  const config = (await import(pathToFileURL(join(root, 'services', name, 'src/config.ts')).href)) as ServiceModules;
  return { buildApp: app.buildApp, parseConfig: config.parseConfig };
}

/** The functions of `root`'s services and libraries (src) that one hosted-page card payment ran, and their calls. */
export async function tracePayment(
  root: string,
  engines: { mongoUrl: string; kafkaBrokers: string[] },
): Promise<TracedFunction[]> {
  const id = randomBytes(4).toString('hex');
  const secret = () => randomBytes(24).toString('hex');
  const [gatewayToken, sessionsToken] = [secret(), secret()];
  const quiet = '3600000';
  const common = {
    MONGODB_URL: engines.mongoUrl,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: `hops_${id}`,
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    OUTBOX_SWEEP_INTERVAL_MS: quiet,
  };
  const logger = createLogger('hops', { level: 'silent' });
  const orders = await service(root, 'orders');
  const sessions = await service(root, 'sessions');
  const ordersApp = orders.buildApp(
    orders.parseConfig({
      ...common,
      MONGODB_DATABASE: `hops_orders_${id}`,
      INTERNAL_CALLERS: internalCallersValue({ gateway: gatewayToken, sessions: sessionsToken }),
    }),
    logger,
  );
  const ordersUrl = (await ordersApp.start()).url;
  const sessionsApp = sessions.buildApp(
    sessions.parseConfig({
      ...common,
      MONGODB_DATABASE: `hops_sessions_${id}`,
      ORDERS_URL: ordersUrl,
      CHECKOUT_BASE_URL: 'http://127.0.0.1:8080/checkout',
      PROCESSOR_WEBHOOK_SECRET: secret(),
      CSRF_SECRET: secret(),
      ID_DERIVATION_SECRET: secret(),
      INTERNAL_TOKEN: sessionsToken,
      INTERNAL_CALLERS: internalCallersValue({ gateway: gatewayToken }),
      EXPIRY_SWEEP_INTERVAL_MS: quiet,
      CONSUMERS_ENABLED: 'false',
    }),
    logger,
  );
  const sessionsUrl = (await sessionsApp.start()).url;
  const inspector = new Session();
  inspector.connect();
  try {
    const pay = await payer(sessionsUrl, gatewayToken);
    await pay(); // warm-up: modules loaded, pools and topics ready
    await pay();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const measured = await pay.prepare();
    await inspector.post('Profiler.takePreciseCoverage');
    await measured.post();
    const { result } = await inspector.post('Profiler.takePreciseCoverage');
    await inspector.post('Profiler.stopPreciseCoverage');
    return result.flatMap((script) => {
      if (!script.url.startsWith('file:')) return [];
      const path = relative(root, fileURLToPath(script.url)).split(sep);
      if ((path[0] !== 'services' && path[0] !== 'libs') || path[2] !== 'src') return [];
      const file = path.join('/');
      return (
        script.functions
          // Not the module's own top level, nor the `__name` helper the TypeScript loader adds to a module.
          .filter((f) => (f.ranges[0]?.count ?? 0) > 0 && f.ranges[0]?.startOffset !== 0 && f.functionName !== '__name')
          .map((f) => ({ file, name: f.functionName || '(anonymous)', calls: f.ranges[0]!.count }))
      );
    });
  } finally {
    inspector.disconnect();
    await sessionsApp.stop().catch(() => {});
    await ordersApp.stop().catch(() => {});
  }
}

/**
 * Pays a new session on its hosted page: `pay()` does all of it; `pay.prepare()` creates the session and reads
 * its page, and returns its `post`, the payment alone, so that only the POST is measured.
 */
async function payer(sessionsUrl: string, gatewayToken: string) {
  const scope = {
    'x-internal-token': gatewayToken,
    'x-organization-id': `org_hops_${randomBytes(4).toString('hex')}`,
    'x-mode': 'test',
  };
  const prepare = async () => {
    const created = await fetch(`${sessionsUrl}/internal/sessions`, {
      method: 'POST',
      headers: { ...scope, 'content-type': 'application/json' },
      body: JSON.stringify({
        items: [{ name: 'Espresso', quantity: 2, unitPrice: 350 }],
        successUrl: 'https://merchant.example/thanks',
      }),
    });
    if (created.status !== 201) throw new Error(`session create answered ${created.status}`);
    const { session } = (await created.json()) as { session: { id: string } };
    const page = await fetch(`${sessionsUrl}/checkout/${session.id}`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    if (!cookie || !csrf) throw new Error('the hosted page gave no CSRF cookie and token');
    return {
      post: async () => {
        const paid = await fetch(`${sessionsUrl}/checkout/${session.id}/pay`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, method: 'card', cardNumber: '4242 4242 4242 4242' }).toString(),
        });
        const to = paid.headers.get('location');
        if (paid.status !== 303 || to !== 'https://merchant.example/thanks')
          throw new Error(`the payment answered ${paid.status} to ${to ?? 'nowhere'}`);
      },
    };
  };
  const pay = async () => (await prepare()).post();
  pay.prepare = prepare;
  return pay;
}
