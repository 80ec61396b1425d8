import { describe, expect, it } from 'vitest';
import { bundleModules, byLayer, OWN_CODE, ownerOf, summarizeProfile, topLines, type CpuProfile } from './cpu-profile';

const BUNDLE = 'file:///app/dist/orders.mjs';
const bundle = [
  'import Koa from "koa";', // 0: esbuild's own helpers and imports come first
  '// libs/kafka/src/outbox.ts', // 1
  'function relay() {}', // 2
  '// services/orders/src/http/orders.routes.ts', // 3
  'function create() {}', // 4
].join('\n');
const modulesOf = (url: string) => (url === BUNDLE ? bundleModules(bundle) : undefined);
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

describe('CPU profile owners', () => {
  it('When a frame is in the bundle, then its owner is the workspace package whose module comment precedes its line', () => {
    expect(ownerOf(frame('relay', BUNDLE, 2), modulesOf)).toBe('libs/kafka');
    expect(ownerOf(frame('create', BUNDLE, 4), modulesOf)).toBe('services/orders');
    expect(ownerOf(frame('__toESM', BUNDLE, 0), modulesOf)).toBe('bundle: its runtime helpers');
  });

  it("When a frame is a third-party package's, Node's or V8's, then it is named for it; idle is no one's", () => {
    expect(ownerOf(frame('serialize', 'file:///app/node_modules/bson/lib/bson.cjs'), modulesOf)).toBe('bson');
    expect(ownerOf(frame('x', 'file:///app/node_modules/@opentelemetry/core/build/index.js'), modulesOf)).toBe(
      '@opentelemetry/core',
    );
    expect(ownerOf(frame('writeGeneric', 'node:internal/stream_base_commons'), modulesOf)).toBe(
      'node: stream_base_commons',
    );
    expect(ownerOf(frame('emit', 'node:events'), modulesOf)).toBe('node: events');
    expect(ownerOf(frame('constructor', 'file:///app/node_modules/koa/lib/context.js'), modulesOf)).toBe('koa');
    expect(ownerOf(frame('(garbage collector)', ''), modulesOf)).toBe('V8: garbage collection');
    expect(ownerOf(frame('JSONParse', ''), modulesOf)).toBe('V8: builtins and native');
    expect(ownerOf(frame('(idle)', ''), modulesOf)).toBeUndefined();
  });
});

describe('CPU profile summary', () => {
  // root → koa handler → node:net's _writev → the native writev; root → (garbage collector); root → (idle)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 4, 5] },
      { id: 2, callFrame: frame('handle', 'file:///app/node_modules/koa/lib/application.js'), children: [3] },
      { id: 3, callFrame: frame('_writev', 'node:net'), children: [6] },
      { id: 4, callFrame: frame('(garbage collector)', '') },
      { id: 5, callFrame: frame('(idle)', '') },
      { id: 6, callFrame: frame('writev', '') },
    ],
    samples: [2, 3, 6, 4, 5, 2],
    // The time a sample stands for is the delta after it: 1 ms each, the idle one 10 ms.
    timeDeltas: [0, 1000, 1000, 1000, 1000, 10_000],
  };

  it("When summarized, then idle is left out and Node's work is charged to the package that called it", () => {
    const summary = summarizeProfile(profile, modulesOf);
    expect(summary.cpuMs).toBe(4);
    expect(Object.fromEntries(summary.self)).toEqual({
      koa: 1,
      'node: net': 1,
      'V8: builtins and native': 1,
      'V8: garbage collection': 1,
    });
    expect(Object.fromEntries(summary.nearestPackage)).toEqual({ koa: 3, 'V8: garbage collection': 1 });
    expect(topLines(summary.nearestPackage, summary.cpuMs, 1)).toEqual([' 75.0 %        3 ms  koa']);
  });

  it('When grouped by layer, then packages sum into theirs, the workspace into its own code, and the rest apart', () => {
    const layers = byLayer(
      new Map([
        ['koa', 3],
        ['@koa/router', 1],
        ['mongodb', 2],
        ['bson', 1],
        ['libs/kafka', 1],
        ['services/orders', 2],
        ['node: net', 1],
      ]),
    );
    expect(Object.fromEntries(layers)).toEqual({
      'HTTP server (Koa, Node http)': 4,
      'MongoDB driver, bson': 3,
      [OWN_CODE]: 3,
      'the rest (Node, V8, other packages)': 1,
    });
  });
});
