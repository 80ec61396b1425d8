// HAProxy in front of each service's replicas: the local stand-in for a Kubernetes Service. The
// config is generated here into a run directory; replicas come and go through the runtime API (a unix socket in
// that directory), so a rolling deploy never reloads HAProxy. Every listener is on 127.0.0.1.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnGuarded, waitFor, type GuardedProcess } from '@checkout/engines';

const execFileAsync = promisify(execFile);
const ENSURE_SCRIPT = fileURLToPath(new URL('../ensure-haproxy.sh', import.meta.url));

/**
 * Health checks: every second, and every 250 ms once a check has changed its mind; two failures take a server
 * out, one success puts it back. A replica that starts answering /readyz 503 leaves rotation within ~1.5 s, so
 * its SHUTDOWN_DRAIN_MS (HEALTH_DRAIN_MS below) must exceed that.
 */
const CHECK = { interMs: 1_000, fastInterMs: 250, downInterMs: 1_000, fall: 2, rise: 1 };
/** What a replica behind this load balancer should wait after its /readyz turns 503 before it stops listening. */
export const HEALTH_DRAIN_MS = CHECK.interMs + CHECK.fastInterMs * CHECK.fall + 1_000;

export interface Backend {
  /** Frontend and backend name, e.g. "orders", "gateway-admin". */
  name: string;
  /** The frontend's port on 127.0.0.1 (what callers are configured with). */
  port: number;
  /** Server slots s1…sN; those with a port start in rotation, the others in maintenance until assigned. */
  slots: (number | undefined)[];
}

/**
 * One line per request when `requestLog` is on (parseRequestLog reads it): the stream's accept date (Unix seconds
 * with ms), its idle and active times (ms), frontend, backend, server, status, method, path, and the
 * x-internal-version the caller sent and the callee answered (`-` when absent: a build older than versioned ones).
 * The accept date alone dates no request: on a keep-alive connection a request's stream is accepted when the one
 * before it ended, and the request comes after the idle time (%Ti); it is then active for %Ta.
 */
const REQUEST_LOG_FORMAT = 'req %Ts.%ms %Ti %Ta %ft %b %s %ST %HM %HP %[capture.req.hdr(0)] %[capture.res.hdr(0)]';

export interface LoggedRequest {
  /** When HAProxy had the request's first byte (ms since the epoch). */
  startedAt: number;
  /** When HAProxy sent the last byte of its answer, or gave up on it. */
  endedAt: number;
  frontend: string;
  backend: string;
  server: string;
  status: number;
  method: string;
  path: string;
  /** The caller's x-internal-version; undefined when it sent none. */
  callerVersion: string | undefined;
  /** The callee's x-internal-version; undefined when it answered none (or never answered). */
  calleeVersion: string | undefined;
}

/** The request lines of a log written with `requestLog`; HAProxy's other lines are skipped. */
export function parseRequestLog(text: string): LoggedRequest[] {
  const out: LoggedRequest[] = [];
  for (const line of text.split('\n')) {
    const m = /^req (\d+)\.(\d{3}) (-?\d+) (-?\d+) (\S+) (\S+) (\S+) (-?\d+) (\S+) (\S+) (\S+) (\S+)$/.exec(
      line.trim(),
    );
    if (!m) continue;
    const header = (v: string | undefined) => (v === undefined || v === '-' || v === '' ? undefined : v);
    // -1 is HAProxy's "never happened" (a stream aborted before its request): no time spent there.
    const ms = (v: string | undefined) => Math.max(0, Number(v));
    const startedAt = Number(m[1]) * 1000 + Number(m[2]) + ms(m[3]);
    out.push({
      startedAt,
      endedAt: startedAt + ms(m[4]),
      frontend: m[5] as string,
      backend: m[6] as string,
      server: m[7] as string,
      status: Number(m[8]),
      method: m[9] as string,
      path: m[10] as string,
      callerVersion: header(m[11]),
      calleeVersion: header(m[12]),
    });
  }
  return out;
}

/** haproxy.cfg for these backends; `socket` is the runtime API's unix socket (admin level). */
export function renderHaproxyConfig(options: {
  socket: string;
  backends: readonly Backend[];
  /** Log every request (REQUEST_LOG_FORMAT) to HAProxy's stdout. */
  requestLog?: boolean;
}): string {
  const lines = [
    'global',
    '  maxconn 4096',
    // Two frontends given one port must fail to start, not share it: with SO_REUSEPORT both bind, and the kernel
    // splits the port's connections between them.
    '  noreuseport',
    `  stats socket ${options.socket} mode 600 level admin`,
    ...(options.requestLog ? ['  log stdout format raw local0 info'] : []),
    // A stop() must not wait for idle keep-alive clients.
    '  hard-stop-after 3s',
    '',
    'defaults',
    '  mode http',
    ...(options.requestLog ? ['  log global', `  log-format "${REQUEST_LOG_FORMAT}"`] : []),
    '  option http-keep-alive',
    '  timeout connect 2s',
    '  timeout client 90s',
    '  timeout server 60s',
    // Longer than undici's 30 s keep-alive (the services' internal clients, the load generator): the client, not
    // HAProxy, closes an idle connection, so a client never sends a request down a socket HAProxy just closed.
    '  timeout http-keep-alive 75s',
    '  timeout http-request 15s',
    '  timeout queue 15s',
    '  timeout check 2s',
    // A connection a backend refused (a replica that just stopped listening) is tried again on another replica:
    // the request never reached a service, so this is safe for a POST too. Not empty-response: a replica that
    // died mid-request may have done the work, and replaying a payment is for the caller (with its idempotency
    // key) to decide, not the load balancer. A graceful stop needs no replay: HAProxy stops sending first.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    `  default-server inter ${CHECK.interMs} fastinter ${CHECK.fastInterMs} downinter ${CHECK.downInterMs} fall ${CHECK.fall} rise ${CHECK.rise}`,
    '',
  ];
  for (const backend of options.backends) {
    lines.push(`frontend ${backend.name}`, `  bind 127.0.0.1:${backend.port}`);
    if (options.requestLog)
      lines.push(
        '  capture request header x-internal-version len 64',
        '  capture response header x-internal-version len 64',
      );
    lines.push(`  default_backend ${backend.name}`, '');
    lines.push(`backend ${backend.name}`);
    backend.slots.forEach((port, i) => {
      // Port 1 is a placeholder: a slot in maintenance is never connected to, and gets a real port before use.
      lines.push(`  server s${i + 1} 127.0.0.1:${port ?? 1} check${port === undefined ? ' disabled' : ''}`);
    });
    lines.push('');
  }
  return lines.join('\n');
}

/** Installs HAProxy from Debian when it is missing (scripts/ensure-haproxy.sh); returns the binary's path. */
export async function ensureHaproxy(log: (line: string) => void): Promise<string> {
  const { stdout, stderr } = await execFileAsync('bash', [ENSURE_SCRIPT], {
    timeout: 20 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
    encoding: 'utf8',
  });
  const last = `${stdout}\n${stderr}`
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('haproxy:'))
    .pop();
  if (last) log(last);
  const path = /haproxy: (?:present|installed) at (\S+)/.exec(last ?? '')?.[1];
  if (!path) throw new Error(`scripts/ensure-haproxy.sh did not name an haproxy binary:\n${stdout}\n${stderr}`);
  return path;
}

type ServerAdminState = 'ready' | 'drain' | 'maint';

export interface Haproxy {
  readonly version: string;
  /** One runtime API command; its answer. */
  command(line: string): Promise<string>;
  /**
   * Points slot `slot` (1-based) of `backend` at a port and puts it in rotation at once: for a replica that already
   * answers /readyz 200; the health checks take it out if it stops.
   */
  assign(backend: string, slot: number, port: number): Promise<void>;
  /** drain: no new requests, those in flight finish; maint: out entirely. */
  setState(backend: string, slot: number, state: ServerAdminState): Promise<void>;
  /** Each server's status as HAProxy's stats show it, e.g. "UP", "DOWN", "MAINT", "DRAIN", by "backend/sN". */
  statuses(): Promise<Map<string, string>>;
  /**
   * Each server's sessions by "backend/sN": those it holds right now (`scur`), all it was ever given (`stot`) and
   * those taken from it to another server (`wredis`), so that two reads tell how many arrived between them.
   */
  sessions(): Promise<Map<string, ServerStats>>;
  stop(): Promise<void>;
}

export async function startHaproxy(options: {
  binary: string;
  runDir: string;
  backends: readonly Backend[];
  log: (line: string) => void;
  /** A file to log every request to (parseRequestLog); HAProxy's own messages go there too. */
  requestLog?: string;
}): Promise<Haproxy> {
  const socket = join(options.runDir, 'haproxy.sock');
  const configFile = join(options.runDir, 'haproxy.cfg');
  await writeFile(
    configFile,
    renderHaproxyConfig({ socket, backends: options.backends, requestLog: options.requestLog !== undefined }),
  );
  await execFileAsync(options.binary, ['-c', '-q', '-f', configFile], { timeout: 30_000 });
  const version =
    (await execFileAsync(options.binary, ['-v'], { encoding: 'utf8' })).stdout.split('\n')[0] ?? 'HAProxy';
  // -db: foreground, so the guard sees it exit and can kill it with this process.
  const proc: GuardedProcess = spawnGuarded({
    name: 'haproxy',
    command: options.binary,
    args: ['-db', '-f', configFile],
    cwd: options.runDir,
    logFile: options.requestLog ?? join(options.runDir, 'haproxy.log'),
  });
  const command = (line: string) => runtimeCommand(socket, line);
  await waitFor('HAProxy runtime API', async () => (await command('show info')).includes('Name: HAProxy'), {
    deadlineMs: 15_000,
    intervalMs: 100,
    abortIf: () => {
      if (proc.exitInfo()) throw new Error(`haproxy exited at start; see ${join(options.runDir, 'haproxy.log')}`);
    },
  });
  const expectEmpty = async (line: string) => {
    const answer = (await command(line)).trim();
    if (answer !== '' && !/^(IP changed|no need to change|port changed)/i.test(answer))
      throw new Error(`haproxy: "${line}" answered: ${answer}`);
  };
  return {
    version,
    command,
    async assign(backend, slot, port) {
      await expectEmpty(`set server ${backend}/s${slot} addr 127.0.0.1 port ${port}`);
      await expectEmpty(`set server ${backend}/s${slot} state ready`);
      await expectEmpty(`enable health ${backend}/s${slot}`);
      // Callers assign a replica once it answers /readyz 200, as Kubernetes adds a pod to its Service's endpoints
      // once its readiness probe passes: in rotation now, not after the next check of a down server (downinter).
      // The checks go on and take it out if it stops answering.
      await expectEmpty(`set server ${backend}/s${slot} health up`);
    },
    async setState(backend, slot, state) {
      await expectEmpty(`set server ${backend}/s${slot} state ${state}`);
    },
    async statuses() {
      return new Map([...(await serverStats(command)).entries()].map(([k, v]) => [k, v.status]));
    },
    sessions: () => serverStats(command),
    stop: () => proc.stop(5_000),
  };
}

/** Sends one line to HAProxy's admin socket and reads the answer to its end (the socket closes after it). */
function runtimeCommand(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let answer = '';
    const timer = setTimeout(() => {
      client.destroy();
      reject(new Error(`haproxy runtime API: no answer to "${line}" within 5 s`));
    }, 5_000);
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (answer += chunk));
    client.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    client.once('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    client.end(`${line}\n`);
  });
}

/** The server rows of `show stat` (CSV), by "backend/sN". */
async function serverStats(command: (line: string) => Promise<string>): Promise<Map<string, ServerStats>> {
  return parseServerStats(await command('show stat'));
}

/**
 * A server's status, and its sessions: those it holds now (`scur`), all it was ever given (`stot`), and those
 * HAProxy took away from it to another server after a failed connection (`wredis`).
 */
export interface ServerStats {
  status: string;
  current: number;
  total: number;
  redispatched: number;
}

/** The servers' rows of `show stat` (its CSV), by "backend/sN"; the frontends' and backends' own rows left out. */
export function parseServerStats(csv: string): Map<string, ServerStats> {
  const [header, ...rows] = csv.trim().split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const [px, sv, status, scur, stot, wredis] = ['pxname', 'svname', 'status', 'scur', 'stot', 'wredis'].map((c) =>
    columns.indexOf(c),
  );
  const result = new Map<string, ServerStats>();
  for (const row of rows) {
    const cells = row.split(',');
    const cell = (index: number | undefined) => cells[index ?? -1] ?? '';
    if (cell(sv) === 'FRONTEND' || cell(sv) === 'BACKEND') continue;
    result.set(`${cell(px)}/${cell(sv)}`, {
      status: cell(status),
      current: Number(cell(scur)) || 0,
      total: Number(cell(stot)) || 0,
      redispatched: Number(cell(wredis)) || 0,
    });
  }
  return result;
}
