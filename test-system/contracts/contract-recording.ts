// Records the contracts between services by running a release: engines and the four services as
// processes (a release's bundles, scripts/lib/releases.ts, or this checkout), a recording proxy in front of every
// internal call (INTERNAL_CALLS), and a merchant's and an operator's journey through the public API, the admin API,
// the hosted page and the dashboard that reaches every internal route; then the documents each service stored.
// `npm run fixtures -- --contracts [--from <release>]` writes what it recorded under libs/contracts/fixtures/
// (testkit/testing contract-fixtures.ts says how they are checked).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from '@checkout/mongo';
import { request } from 'undici';
import { freePort, startEngines, type Engines } from '@checkout/engines';
import {
  idsIn,
  startWebhookReceiver,
  type DocumentFixture,
  type HttpFixture,
  type WebhookReceiver,
} from '@checkout/testing';
import { buildInfo } from '@checkout/config';
import { REPORT_FILES_BUCKET } from '@checkout/orders/indexes';
import { INTERNAL_CALLS, type InternalCall } from '../../scripts/lib/cluster-calls';
import { startProcessStack, type ProcessStack, type ServiceName } from '../../scripts/lib/process-stack';
import type { ServiceBuild } from '../../scripts/lib/releases';
import { routeOf } from '../soak/versions';
import { jsonOrUndefined } from './recording-clients';
import { recordingJourney } from './recording-journey';
import { startTraceSink, type TraceSink } from '../../scripts/lib/trace-sink';

/**
 * Request headers a contract is about; the token, request id, version and transport headers are not. The trace
 * context is: a callee continues the caller's trace from it (a release that traces sends it, recorded below).
 */
const REQUEST_HEADERS = new Set([
  'traceparent',
  'tracestate',
  'x-organization-id',
  'x-mode',
  'idempotency-key',
  'x-idempotency-record',
  'x-checkout-session-id',
  'x-checkout-settings',
  'x-list-without-total',
  'content-type',
]);
const RESPONSE_HEADERS = new Set(['x-order-revision', 'x-checkout-session-id', 'retry-after', 'content-type']);

interface Recorded extends Omit<HttpFixture, 'recordedFrom' | 'route' | 'seq'> {
  at: number;
}

const pick = (headers: Record<string, string | string[] | undefined>, keep: ReadonlySet<string>) => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (keep.has(name.toLowerCase()) && value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};

/**
 * A loopback proxy in front of one internal call: forwards each request to the callee unchanged and records it
 * with its answer. The hosted page and the processor's notifications, which the gateway passes through for
 * browsers and the processor, are forwarded but not recorded: their readers are not services.
 */
async function recordingProxy(
  call: InternalCall,
  target: () => string | undefined,
  sink: Recorded[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const base = target();
        if (!base) {
          res.writeHead(503).end();
          return;
        }
        const body = Buffer.concat(chunks);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([n]) => !['host', 'connection', 'content-length', 'keep-alive'].includes(n),
          ),
        ) as Record<string, string>;
        try {
          const answer = await request(`${base}${req.url ?? '/'}`, {
            method: req.method as 'GET',
            headers,
            body: body.length > 0 ? body : undefined,
          });
          const text = await answer.body.text();
          const path = req.url ?? '/';
          if (!path.startsWith('/checkout/') && !path.startsWith('/internal/processor/'))
            sink.push({
              at: Date.now(),
              caller: call.caller,
              callee: call.callee,
              request: {
                method: req.method ?? 'GET',
                path,
                headers: pick(req.headers, REQUEST_HEADERS),
                ...(body.length > 0 && { body: jsonOrUndefined(body.toString('utf8')) }),
              },
              response: {
                status: answer.statusCode,
                headers: pick(answer.headers, RESPONSE_HEADERS),
                ...(text !== '' && { body: jsonOrUndefined(text) }),
              },
            });
          const out: Record<string, string | string[]> = {};
          for (const [n, v] of Object.entries(answer.headers))
            if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(n))
              out[n] = v;
          res.writeHead(answer.statusCode, out).end(text);
        } catch (err) {
          res.writeHead(502).end(String(err));
        }
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Values that are secrets, replaced by placeholders of the same form before anything is committed. */
function redacted(value: unknown): unknown {
  if (typeof value === 'string') {
    if (/^whsec_/.test(value)) return `whsec_${'0'.repeat(32)}`;
    if (/^sk_(test|live)_/.test(value)) return value.replace(/^(sk_(?:test|live)_).*/, `$1${'0'.repeat(48)}`);
    if (/^[0-9a-f]{64}$/.test(value)) return '0'.repeat(64);
    return value;
  }
  if (Array.isArray(value)) return value.map(redacted);
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v)]));
  return value;
}

/** The databases of a stack, by the service that owns each (stack-env's `<prefix>_<name>`). */
const DATABASES: Record<string, ServiceName> = {
  orders: 'orders',
  sessions: 'sessions',
  webhooks: 'webhook-dispatcher',
  gateway: 'gateway',
};
/**
 * Collections with no shape another version reads, or none once the journey is over (contract-coverage.test.ts), and
 * the reports' GridFS bucket, whose documents are the driver's format, not ours (its ids and bytes are BSON values a
 * fixture has no form for).
 */
const NOT_CONTRACTS = new Set([
  'leases',
  'balance_queue',
  `${REPORT_FILES_BUCKET}.files`,
  `${REPORT_FILES_BUCKET}.chunks`,
]);

export interface ContractRecording {
  recordedFrom: string;
  interactions: HttpFixture[];
  documents: DocumentFixture[];
}

/** Runs `build` (a release's bundles, or this checkout's sources), records its internal calls and documents. */
export async function recordContracts(options: {
  build?: ServiceBuild;
  log: (line: string) => void;
}): Promise<ContractRecording> {
  const { log } = options;
  const build = options.build ?? { ...buildInfo() };
  const recordedFrom = `${build.version} (${build.commit.slice(0, 12)}), recorded ${new Date().toISOString().slice(0, 16)}Z`;
  const namePrefix = `contracts_${randomBytes(3).toString('hex')}`;
  const sink: Recorded[] = [];
  let engines: Engines | undefined;
  let stack: ProcessStack | undefined;
  let receiver: WebhookReceiver | undefined;
  let traces: TraceSink | undefined;
  const proxies: RecordingProxy[] = [];
  let mongo: MongoClient | undefined;
  try {
    engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
    receiver = await startWebhookReceiver();
    // Traced as in production (a release older than tracing ignores the setting): internal calls carry
    // `traceparent` and outbox rows their trace context, so a recording shows what a later release meets.
    traces = await startTraceSink();
    let urls: StackUrls | undefined;
    const extraEnv = await startRecordingProxies({ sink, urls: () => urls, traces, proxies });
    stack = await startProcessStack({
      mongoUrl: engines.mongoUrl,
      kafkaBrokers: engines.kafkaBrokers,
      namePrefix,
      logDir: join(tmpdir(), `checkout-contracts-${namePrefix}`),
      logLevel: 'warn',
      extraEnv,
      ...(build.bundleDir !== undefined && { bundleDir: build.bundleDir }),
      onUrls: (u) => {
        urls = u;
      },
    });
    log(`recording: ${build.version} running; service logs in ${stack.logDir}`);
    await recordingJourney(stack, receiver, log);

    mongo = new MongoClient(engines.mongoUrl);
    const documents = await storedDocuments(mongo, namePrefix, recordedFrom);
    return { recordedFrom, interactions: recordedInteractions(sink, recordedFrom), documents };
  } finally {
    await mongo?.close().catch(() => {});
    await stack?.stop().catch(() => {});
    for (const proxy of proxies) await proxy.close().catch(() => {});
    await receiver?.close().catch(() => {});
    await traces?.close().catch(() => {});
    await engines?.stop().catch(() => {});
  }
}

type RecordingProxy = Awaited<ReturnType<typeof recordingProxy>>;
type StackUrls = Record<ServiceName, string> & { admin: string };
type ServicesEnv = Record<'gateway' | 'orders' | 'sessions' | 'dispatcher', Record<string, string>>;

/**
 * A recording proxy in front of each internal call, and each service's environment that sends its calls through
 * them. Each proxy joins `proxies` as soon as it listens, so that a failed start still closes the ones before it.
 */
async function startRecordingProxies(recording: {
  sink: Recorded[];
  /** The stack's addresses, once it has them: until then a proxy answers 503. */
  urls: () => StackUrls | undefined;
  traces: TraceSink;
  proxies: RecordingProxy[];
}): Promise<ServicesEnv> {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: recording.traces.endpoint };
  const extraEnv: ServicesEnv = {
    gateway: { ...otel },
    orders: { ...otel },
    sessions: { ...otel },
    dispatcher: { ...otel },
  };
  for (const call of INTERNAL_CALLS) {
    const proxy = await recordingProxy(
      call,
      () => {
        const urls = recording.urls();
        return urls ? (call.listener === 'gateway-admin' ? urls.admin : urls[call.callee]) : undefined;
      },
      recording.sink,
    );
    recording.proxies.push(proxy);
    extraEnv[call.caller === 'webhook-dispatcher' ? 'dispatcher' : call.caller][call.env] = proxy.url;
  }
  return extraEnv;
}

/** The internal calls in the order they were answered, numbered from 1, their secrets redacted. */
function recordedInteractions(sink: Recorded[], recordedFrom: string): HttpFixture[] {
  return sink
    .sort((a, b) => a.at - b.at)
    .map((r, i) => ({
      recordedFrom,
      caller: r.caller,
      callee: r.callee,
      route: routeOf(r.request.method, r.request.path),
      seq: i + 1,
      request: redacted(r.request) as HttpFixture['request'],
      response: redacted(r.response) as HttpFixture['response'],
    }));
}

/** Every document of every service's database but those of NOT_CONTRACTS, in _id order, secrets redacted. */
async function storedDocuments(
  mongo: MongoClient,
  namePrefix: string,
  recordedFrom: string,
): Promise<DocumentFixture[]> {
  const documents: DocumentFixture[] = [];
  for (const [db, service] of Object.entries(DATABASES)) {
    const database = mongo.db(`${namePrefix}_${db}`);
    for (const { name } of await database.listCollections({}, { nameOnly: true }).toArray()) {
      if (NOT_CONTRACTS.has(name)) continue;
      for (const document of await database.collection(name).find({}).sort({ _id: 1 }).toArray())
        documents.push({
          recordedFrom,
          service,
          collection: name,
          document: redacted(document) as Record<string, unknown>,
        });
    }
  }
  return documents;
}

/**
 * Whether a document is where an id comes from: its _id is (or names) it, or, for any id but the organization's
 * (which every document names), a top-level reference to it (a delivery's eventId, shown with its event).
 */
function holds(d: DocumentFixture, id: string): boolean {
  if (String(d.document._id).includes(id)) return true;
  return !id.startsWith('org_') && Object.entries(d.document).some(([k, v]) => k.endsWith('Id') && v === id);
}

/**
 * What of a recording to commit, given what is committed. When any interaction has a shape no committed fixture
 * has, the whole recording's interactions: a replay runs one recording's calls in order, and each call needs the
 * state the ones before it made (the order a list shows, the cancel before the edit it refuses). Documents: every
 * shape not committed; those holding an id a kept request or answer names that no earlier write to that callee
 * answered with (the events the dispatcher recorded from Kafka, which its lists show and its reads name; the
 * organization the gateway keeps), which a replay stores first; and those a kept document names by a top-level
 * `…Id` (a delivery's event), which a reader of it reads too. An id a read answered with was read, not made.
 */
export function selectNew(
  recording: ContractRecording,
  committed: { http: readonly HttpFixture[]; documents: readonly DocumentFixture[] },
  shapes: { http: (f: HttpFixture) => string; document: (f: DocumentFixture) => string },
): ContractRecording {
  const knownHttp = new Set(committed.http.map((f) => shapes.http(f)));
  const knownDocs = new Set(committed.documents.map((d) => shapes.document(d)));
  const anyNew = recording.interactions.some((f) => !knownHttp.has(shapes.http(f)));
  const interactions = anyNew ? recording.interactions : [];
  const keptDocs = new Set<DocumentFixture>();
  const seenDocShapes = new Set<string>();
  for (const d of recording.documents) {
    const shape = shapes.document(d);
    if (knownDocs.has(shape) || seenDocShapes.has(shape)) continue;
    seenDocShapes.add(shape);
    keptDocs.add(d);
  }
  const organization = [...idsIn(recording.interactions[0]?.request.headers)].find((id) => id.startsWith('org_'));
  for (const f of interactions)
    for (const id of idsIn([f.request.path, f.request.body, f.request.headers, f.response.body])) {
      if (id === organization && f.callee !== 'gateway') continue;
      const made = recording.interactions.some(
        (e) =>
          e.callee === f.callee &&
          e.request.method !== 'GET' &&
          e.seq <= f.seq &&
          idsIn([e.response.body, e.response.headers]).has(id),
      );
      if (made) continue;
      for (const d of recording.documents) if (d.service === f.callee && holds(d, id)) keptDocs.add(d);
    }
  for (const kept of [...keptDocs])
    for (const [key, id] of Object.entries(kept.document))
      if (key.endsWith('Id') && key !== 'organizationId' && typeof id === 'string')
        for (const d of recording.documents)
          if (d.service === kept.service && String(d.document._id).includes(id)) keptDocs.add(d);
  return {
    recordedFrom: recording.recordedFrom,
    interactions,
    documents: recording.documents.filter((d) => keptDocs.has(d)),
  };
}
