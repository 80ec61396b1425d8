// Consumer-driven contract fixtures between services: what a release's callers sent each internal HTTP
// route and what its callees answered, and the documents its writers stored, committed under
// libs/contracts/fixtures/{http,documents}/ the way message fixtures are (fixtures/messages). They are recorded by
// running a release (`npm run fixtures -- --contracts --from <release>`, test-system/contracts/contract-recording.ts)
// and checked without running two versions: today's callees answer the recorded requests with a superset of the
// recorded answers (test-e2e/src/contracts.e2e.test.ts), today's callers parse the recorded answers
// (test-system/contracts/http-contracts.test.ts), and today's readers read the recorded documents (the e2e test again).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

export const CONTRACT_FIXTURES_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'libs',
  'contracts',
  'fixtures',
);
export const HTTP_FIXTURES_DIR = join(CONTRACT_FIXTURES_DIR, 'http');
export const DOCUMENT_FIXTURES_DIR = join(CONTRACT_FIXTURES_DIR, 'documents');

export type CallerName = 'gateway' | 'sessions' | 'webhook-dispatcher';
export type CalleeName = 'orders' | 'sessions' | 'webhook-dispatcher' | 'gateway';

/** One internal call as a release made it: the caller's request and the callee's answer. */
export interface HttpFixture {
  /** The release (version and commit) whose services made and answered it. */
  recordedFrom: string;
  caller: CallerName;
  callee: CalleeName;
  /** `METHOD /route/:id`: the route, ids replaced. */
  route: string;
  /** Its place in the recording: a replay runs a callee's fixtures in this order (creates before reads). */
  seq: number;
  request: {
    method: string;
    /** Path and query as sent, ids included (a replay maps them to what today's callee made). */
    path: string;
    /** The headers the contract is about (scope, idempotency, internal API headers); never the token. */
    headers: Record<string, string>;
    body?: unknown;
  };
  response: {
    status: number;
    headers: Record<string, string>;
    body?: unknown;
  };
}

/** One stored document as a release's writer left it (relaxed Extended JSON: dates stay dates). */
export interface DocumentFixture {
  recordedFrom: string;
  service: CalleeName;
  collection: string;
  /** Secrets in it (signing secrets, key hashes) are replaced by placeholders of the same form. */
  document: Record<string, unknown>;
}

/** Fields whose value, not only its type, tells message shapes apart: the discriminators of the message unions. */
export const MESSAGE_DISCRIMINATORS: ReadonlySet<string> = new Set(['type', 'event', 'version']);
/**
 * For answers and documents, states and outcomes too (a cancelled order reads differently from an open one), when
 * they are words: a stored HTTP status (an idempotency record's answer) is a number like any other.
 */
const DISCRIMINATORS: ReadonlySet<string> = new Set([
  ...MESSAGE_DISCRIMINATORS,
  'code',
  'outcome',
  'status',
  'paymentStatus',
]);

/** A key that is data, not a field's name: a map keyed by UTC day (a balance's `days`, D52) has one shape any day. */
const DAY_KEY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The shape of a JSON value: its field names and the JSON types of their values, recursively (the values of
 * discriminators too); arrays by the distinct shapes of their elements. Two values with the same shape exercise
 * a reader the same way (ids, amounts and times differ between runs; their types do not).
 */
export function shapeOf(
  value: unknown,
  discriminators: ReadonlySet<string> = MESSAGE_DISCRIMINATORS,
  wordsOnly = false,
): string {
  const of = (v: unknown) => shapeOf(v, discriminators, wordsOnly);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${[...new Set(value.map(of))].sort().join('|')}]`;
  if (value instanceof Date) return 'date';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const discriminates = (k: string, v: unknown) =>
      discriminators.has(k) && (wordsOnly ? typeof v === 'string' : typeof v !== 'object');
    const fields = entries.map(
      ([k, v]) => `${DAY_KEY.test(k) ? '<day>' : k}:${discriminates(k, v) ? JSON.stringify(v) : of(v)}`,
    );
    return `{${[...new Set(fields)].join(',')}}`;
  }
  return typeof value;
}
const contractShape = (value: unknown) => shapeOf(value, DISCRIMINATORS, true);

/** The shape of an HTTP fixture: route, header names and bodies both ways, status. */
export function httpFixtureShape(f: Pick<HttpFixture, 'caller' | 'callee' | 'route' | 'request' | 'response'>): string {
  const names = (h: Record<string, string>) => Object.keys(h).sort().join(',');
  return [
    f.caller,
    f.callee,
    f.route,
    names(f.request.headers),
    contractShape(f.request.body),
    f.response.status,
    names(f.response.headers),
    contractShape(f.response.body),
  ].join('|');
}

/**
 * The shape of a stored document; a top-level field holding JSON text (a session's `orderJson`, its copy of the
 * order, D46) by the shape of what it holds: a session whose order was refunded (D48) reads differently.
 */
export function documentShape(f: Pick<DocumentFixture, 'service' | 'collection' | 'document'>): string {
  const held = (key: string, value: unknown): unknown => {
    if (!key.endsWith('Json') || typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  };
  const document = Object.fromEntries(Object.entries(f.document).map(([k, v]) => [k, held(k, v)]));
  return `${f.service}|${f.collection}|${contractShape(document)}`;
}

function readJsonDir<T>(root: string, parse: (text: string) => T): Array<{ dir: string; name: string; fixture: T }> {
  if (!existsSync(root)) return [];
  const found: Array<{ dir: string; name: string; fixture: T }> = [];
  for (const dir of readdirSync(root).sort())
    for (const file of readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.json'))
      .sort())
      found.push({
        dir,
        name: file.replace(/\.json$/, ''),
        fixture: parse(readFileSync(join(root, dir, file), 'utf8')),
      });
  return found;
}

/** Every committed HTTP fixture, in recording order; `dir` is `<caller>.<callee>`. */
export function readHttpFixtures(): Array<{ dir: string; name: string; fixture: HttpFixture }> {
  return readJsonDir(HTTP_FIXTURES_DIR, (t) => JSON.parse(t) as HttpFixture).sort(
    (a, b) => a.fixture.seq - b.fixture.seq,
  );
}

/** Every committed document fixture; `dir` is `<service>.<collection>`; dates come back as Dates. */
export function readDocumentFixtures(): Array<{ dir: string; name: string; fixture: DocumentFixture }> {
  return readJsonDir(DOCUMENT_FIXTURES_DIR, (t) => JSON.parse(t, reviveDates) as DocumentFixture);
}

export function documentFixtureJson(fixture: DocumentFixture): string {
  return `${JSON.stringify({ ...fixture, document: withDatesMarked(fixture.document) }, null, 2)}\n`;
}

// Stored documents hold JSON values and dates only (ids are strings), so their fixtures are relaxed Extended JSON
// with `{"$date": "<ISO>"}` the one marker, written and read here: the test kit stays off the driver (@checkout/mongo
// uses it in its own tests). Any other BSON value in a recording is refused, not written as something it is not.
function withDatesMarked(value: unknown): unknown {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(withDatesMarked);
  if (value !== null && typeof value === 'object') {
    if ('_bsontype' in value)
      throw new Error(`a stored ${String(value._bsontype)} has no fixture form: add it to contract-fixtures.ts`);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDatesMarked(v)]));
  }
  return value;
}

function reviveDates(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const date = (value as { $date?: unknown }).$date;
    if (keys.length === 1 && typeof date === 'string') return new Date(date);
  }
  return value;
}

// ---- replaying a recording against today's code -----------------------------------------------------------

/** Ids as the platform makes them: `ord_test_…`, `cs_live_…`, and the gateway's `org_…` and `key_…` (hex). */
const ID_SOURCE = '[a-z]+_(?:test|live)_[0-9A-Za-z]+|(?:org|key)_[0-9a-f]{24}';
const ID = new RegExp(`^(?:${ID_SOURCE})$`);
/** Every id in a text. */
export const IDS_IN_TEXT = new RegExp(ID_SOURCE, 'g');

/** Every id a value names (paths, bodies, header values, documents), the organization's included. */
export function idsIn(value: unknown): Set<string> {
  const text = JSON.stringify(value, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v)) ?? '';
  return new Set([...text.matchAll(IDS_IN_TEXT)].map((m) => m[0]));
}

/**
 * What a replay learned: each id the recording had, and the one today's callee made in its place (found where a
 * recorded answer and today's have the same field), so that later requests name what today's callee made.
 */
export class IdMap {
  private readonly map = new Map<string, string>();

  set(recorded: string, actual: string): void {
    if (recorded !== actual) this.map.set(recorded, actual);
  }

  /** Maps every id in `value` not mapped yet to a new one of its kind: a recording's documents stored afresh. */
  freshen(value: unknown): void {
    for (const id of idsIn(value)) {
      if (this.map.has(id)) continue;
      const hex = /^(org|key)_[0-9a-f]{24}$/.exec(id);
      const suffix = randomBytes(18).toString('base64url').replace(/[-_]/g, 'x');
      this.set(id, hex ? `${hex[1]}_${randomBytes(12).toString('hex')}` : id.replace(/[0-9A-Za-z]+$/, suffix));
    }
  }

  get size(): number {
    return this.map.size;
  }

  /**
   * Walks a recorded value and today's side by side and maps every id that differs. A list's n-th element need not
   * be the same resource in both (what is listed, and in which order, is state), so an element is learned only from
   * its one twin: the element of today's list whose other ids are those the replay made for the recorded element's
   * (a balance transaction, D52, whose id is derived from its order and source and is only ever listed first).
   */
  learn(recorded: unknown, actual: unknown): void {
    if (typeof recorded === 'string' && typeof actual === 'string') {
      if (ID.test(recorded) && ID.test(actual) && !this.map.has(recorded)) this.set(recorded, actual);
      return;
    }
    if (Array.isArray(recorded)) {
      if (!Array.isArray(actual)) return;
      for (const element of recorded) {
        const twins = actual.filter((candidate) => this.isTwin(element, candidate));
        if (twins.length === 1) this.learn(element, twins[0]);
      }
      return;
    }
    if (recorded && actual && typeof recorded === 'object' && typeof actual === 'object')
      for (const [k, v] of Object.entries(recorded)) this.learn(v, (actual as Record<string, unknown>)[k]);
  }

  /**
   * The recorded ids, of the `kinds` given, of list elements today's answer does not list yet: elements not learned
   * before, whose other ids all name what the replay made, with no twin in `actual`. What an owner builds off the
   * request path (D52's balance transactions, `txn`) is listed a moment later than it was recorded; a read asked again
   * until this is empty learns their ids before a later call names them. Only those kinds: a replay does not make
   * again everything a recording's Kafka traffic made (a delivery to an endpoint), and the lists of those promise only
   * their fields (missingFromAnswer).
   */
  unlisted(recorded: unknown, actual: unknown, kinds: readonly string[]): string[] {
    if (Array.isArray(recorded)) {
      const listed: readonly unknown[] = Array.isArray(actual) ? actual : [];
      return recorded.flatMap((element) => {
        const id = (element as { id?: unknown } | null)?.id;
        if (typeof id !== 'string' || !kinds.includes(kindOf(id))) return [];
        if (this.map.has(id) || !this.madeTheOthersOf(element)) return [];
        return listed.some((candidate) => this.isTwin(element, candidate)) ? [] : [id];
      });
    }
    if (!recorded || typeof recorded !== 'object' || !actual || typeof actual !== 'object') return [];
    return Object.entries(recorded).flatMap(([k, v]) =>
      this.unlisted(v, (actual as Record<string, unknown>)[k], kinds),
    );
  }

  /** Whether an element's ids other than its own are ids the replay made (there is at least one). */
  private madeTheOthersOf(element: unknown): boolean {
    const others = otherIds(element as Record<string, unknown>);
    return others.length > 0 && others.every(([, id]) => this.map.has(id));
  }

  /**
   * Whether `actual` is the resource `recorded` stood for: an unmapped id of the same kind, not already another's,
   * and at least one other id field, each naming what the replay made for the recorded one.
   */
  private isTwin(recorded: unknown, actual: unknown): boolean {
    if (!recorded || !actual || typeof recorded !== 'object' || typeof actual !== 'object') return false;
    const was = recorded as Record<string, unknown>;
    const now = actual as Record<string, unknown>;
    if (typeof was.id !== 'string' || typeof now.id !== 'string' || !ID.test(was.id) || !ID.test(now.id)) return false;
    if (this.map.has(was.id) || kindOf(was.id) !== kindOf(now.id) || [...this.map.values()].includes(now.id))
      return false;
    const others = otherIds(was);
    return others.length > 0 && others.every(([key, id]) => now[key] === this.get(id));
  }

  /** The id today's callee made for a recorded one (or the recorded one, where it made none). */
  get(recorded: string): string {
    return this.map.get(recorded) ?? recorded;
  }

  /** `value` with every mapped id replaced, in strings anywhere (paths, bodies, header values). */
  apply<T>(value: T): T {
    if (this.map.size === 0) return value;
    const replace = (s: string) => s.replace(IDS_IN_TEXT, (id) => this.map.get(id) ?? id);
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return replace(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object' && !(v instanceof Date))
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [replace(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }
}

/** An id's kind: its prefix (`txn` of `txn_test_…`). */
function kindOf(id: string): string {
  return id.slice(0, id.indexOf('_'));
}

/** A resource's fields that name other resources (every id-shaped string but its own `id`). */
function otherIds(resource: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(resource).filter(
    (entry): entry is [string, string] => entry[0] !== 'id' && typeof entry[1] === 'string' && ID.test(entry[1]),
  );
}

/**
 * Where today's answer fails what the recorded one promised its caller: every field the recording had is
 * still there with the same JSON type (an added field is fine: readers are tolerant; a renamed, removed or
 * retyped one is not), and the values of discriminators and states are the same. Empty: compatible.
 */
export function missingFromAnswer(recorded: unknown, actual: unknown, path = 'body', ids?: IdMap): string[] {
  if (recorded === null) return actual === null ? [] : [`${path}: was null, now ${contractShape(actual)}`];
  if (Array.isArray(recorded)) {
    if (!Array.isArray(actual)) return [`${path}: was an array, now ${contractShape(actual)}`];
    // The first element stands for the rest (a list page); an empty recorded list promises nothing more. It is
    // compared with the same resource where today's list has it; else only its fields and their types count.
    if (recorded.length === 0 || actual.length === 0) return [];
    const first: unknown = recorded[0];
    const idOf = (value: unknown): unknown =>
      value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
    const firstId = idOf(first);
    const listed: readonly unknown[] = actual;
    const same = typeof firstId === 'string' && ids ? listed.find((a) => idOf(a) === ids.get(firstId)) : undefined;
    if (same !== undefined) return missingFromAnswer(first, same, `${path}[0]`, ids);
    return missingFromAnswer(first, actual[0], `${path}[0]`, ids).filter((p) => !p.includes(': was "'));
  }
  if (typeof recorded === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: was an object, now ${contractShape(actual)}`];
    const problems: string[] = [];
    for (const [key, value] of Object.entries(recorded as Record<string, unknown>)) {
      const now = (actual as Record<string, unknown>)[key];
      if (now === undefined) problems.push(`${path}.${key}: gone`);
      else if (DISCRIMINATORS.has(key) && typeof value !== 'object' && value !== now)
        problems.push(`${path}.${key}: was ${JSON.stringify(value)}, now ${JSON.stringify(now)}`);
      else problems.push(...missingFromAnswer(value, now, `${path}.${key}`, ids));
    }
    return problems;
  }
  return typeof recorded === typeof actual ? [] : [`${path}: was ${typeof recorded}, now ${contractShape(actual)}`];
}
