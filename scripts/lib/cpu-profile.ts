// What a V8 CPU profile (node --cpu-prof) spent its time on, by owner: the third-party package, the workspace
// package or service, Node's own modules, or V8 (garbage collection, compiling). The services run from esbuild
// bundles that keep third-party packages external (their frames name their files under node_modules) and hold the
// workspace's code in one file, where esbuild writes each module's path in a comment before its code
// (`// libs/kafka/src/outbox.ts`): a bundle frame's owner is the module whose comment precedes its line.

export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** Where each bundled module starts: [first line (0-based), path], ordered by line. */
export type BundleModules = Array<[number, string]>;

/** The module comments esbuild writes into a bundle, in line order. */
export function bundleModules(source: string): BundleModules {
  const modules: BundleModules = [];
  source.split('\n').forEach((line, index) => {
    const match = /^\/\/ ((?:libs|services|testkit|node_modules)\/\S+\.[cm]?[jt]s)$/.exec(line);
    if (match?.[1]) modules.push([index, match[1]]);
  });
  return modules;
}

/** The package a path under node_modules belongs to (`@scope/name` or `name`), or the workspace's package. */
function packageOf(path: string): string {
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [first, second] = path.slice(inModules + 'node_modules/'.length).split('/');
    return first?.startsWith('@') ? `${first}/${second}` : (first ?? path);
  }
  const [root, name] = path.split('/');
  return `${root}/${name}`;
}

const V8_FRAMES = new Map([
  ['(garbage collector)', 'V8: garbage collection'],
  ['(program)', 'V8: (program): compiling, native code'],
  ['(root)', 'V8: (root)'],
]);

const NATIVE = 'V8: builtins and native';

/** A frame's owner, or undefined for idle time (not CPU). `modulesOf` gives a bundle file's module table. */
export function ownerOf(
  frame: { functionName: string; url: string; lineNumber: number },
  modulesOf: (url: string) => BundleModules | undefined,
): string | undefined {
  if (frame.functionName === '(idle)') return undefined;
  const v8 = V8_FRAMES.get(frame.functionName);
  if (v8) return v8;
  if (frame.url === '') return NATIVE;
  if (frame.url.startsWith('node:')) {
    const path = frame.url.slice('node:'.length).replace(/^internal\//, '');
    return `node: ${path.split('/')[0]}`;
  }
  if (frame.url.includes('/node_modules/')) return packageOf(frame.url);
  const modules = modulesOf(frame.url);
  if (modules === undefined) return frame.url.replace(/^file:\/\//, '');
  let owner: string | undefined;
  for (const [line, path] of modules) {
    if (line > frame.lineNumber) break;
    owner = path;
  }
  return owner === undefined ? 'bundle: its runtime helpers' : packageOf(owner);
}

/** Whether an owner is code someone chose (a package or the workspace's), not Node's or V8's own machinery. */
function isPackage(owner: string): boolean {
  return !owner.startsWith('node: ') && !owner.startsWith('V8: ');
}

export interface ProfileSummary {
  /** CPU time sampled, ms (idle excluded). */
  cpuMs: number;
  /** ms by the frame that was running. */
  self: Map<string, number>;
  /** ms by the nearest frame up the stack that is a package's: Node's and V8's work charged to who called it. */
  nearestPackage: Map<string, number>;
  /** ms by function (`name owner`), self. */
  functions: Map<string, number>;
}

export function summarizeProfile(
  profile: CpuProfile,
  modulesOf: (url: string) => BundleModules | undefined,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owners = new Map(profile.nodes.map((node) => [node.id, ownerOf(node.callFrame, modulesOf)]));
  const nearest = (id: number): string | undefined => {
    const own = owners.get(id);
    // Idle, collection and compiling are their own; a builtin (a socket's writev, JSON.parse) is its caller's.
    if (own === undefined || (own.startsWith('V8: ') && own !== NATIVE)) return own;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const owner = owners.get(at);
      if (owner !== undefined && isPackage(owner)) return owner;
    }
    return own;
  };
  const summary: ProfileSummary = { cpuMs: 0, self: new Map(), nearestPackage: new Map(), functions: new Map() };
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the gap to the next one.
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const owner = owners.get(id);
    if (owner === undefined) return;
    summary.cpuMs += ms;
    add(summary.self, owner, ms);
    add(summary.nearestPackage, nearest(id) ?? owner, ms);
    const frame = byId.get(id)?.callFrame;
    add(summary.functions, `${frame?.functionName || '(anonymous)'} · ${owner}`, ms);
  });
  return summary;
}

/**
 * Layers of a service's work, by the packages that do it (as charged by the nearest package up the stack): where a
 * request's CPU goes between the protocols it speaks and this repository's own code.
 */
const LAYERS: ReadonlyArray<[string, readonly string[]]> = [
  ['HTTP server (Koa, Node http)', ['koa', '@koa/router', 'koa-compose', 'delegates', 'on-finished', 'statuses']],
  ['HTTP client (undici)', ['undici']],
  ['MongoDB driver, bson', ['mongodb', 'bson']],
  ['Kafka client (kafkajs)', ['kafkajs']],
  ['validation (zod)', ['zod']],
  ['metrics, logs, tracing', ['prom-client', 'pino', 'sonic-boom', '@opentelemetry/core', '@opentelemetry/api']],
  ['V8: garbage collection', ['V8: garbage collection']],
];
export const OWN_CODE = 'this repository (services/*, libs/*)';

/** A breakdown by nearest package, summed into LAYERS, this repository's code, and the rest. */
export function byLayer(nearestPackage: ReadonlyMap<string, number>): Map<string, number> {
  const layers = new Map<string, number>();
  for (const [owner, ms] of nearestPackage) {
    const layer =
      LAYERS.find(([, packages]) => packages.includes(owner))?.[0] ??
      (owner.startsWith('libs/') || owner.startsWith('services/') ? OWN_CODE : 'the rest (Node, V8, other packages)');
    layers.set(layer, (layers.get(layer) ?? 0) + ms);
  }
  return layers;
}

/** The `top` largest entries of a breakdown as `share  ms  name` lines. */
export function topLines(breakdown: Map<string, number>, totalMs: number, top: number): string[] {
  return [...breakdown]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([name, ms]) =>
        `${((100 * ms) / Math.max(totalMs, 1e-9)).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`,
    );
}
