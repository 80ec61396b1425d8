import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallGraph } from './call-hops';

// What `npm run hops` counts, on a repository of a few files: the functions reached from an entry through calls
// that resolve into services/*/src and libs/*/src (closures counted with the function that holds them), across a
// declared bridge, stopping at a target.

let root: string;
let graph: CallGraph;

const FILES: Record<string, string> = {
  'tsconfig.base.json': JSON.stringify({
    compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler', target: 'ES2022' },
  }),
  'services/api/src/routes.ts': `
    import { Client } from './client';
    import { helper } from '../../../libs/util/src/helper';
    declare const router: { post(path: string, handler: () => unknown): void; get(path: string, handler: () => unknown): void };
    export function routes(client: Client) {
      router.post('/pay', async () => { helper(); await client.pay(); [1].map((n) => helper(n)); });
      router.get('/other', () => unused());
    }
    function unused() { return helper(); }
  `,
  'services/api/src/client.ts': `
    export class Client { async pay() { return this.send(); } private send() { return 1; } }
  `,
  'libs/util/src/helper.ts': `
    export function helper(n = 0) { return n + 1; }
    export interface Port { publish(): void }
    export function publishVia(port: Port) { port.publish(); }
    export class KafkaPort implements Port { publish() { sendIt(); } }
    function sendIt() { return 3; }
  `,
  'services/owner/src/handlers.ts': `
    import { publishVia, type Port } from '../../../libs/util/src/helper';
    declare const router: { post(path: string, handler: () => unknown): void };
    declare const port: Port;
    router.post('/payments', () => record());
    function record() { publishVia(port); return afterPublish(); }
    function afterPublish() { return 2; }
  `,
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'call-hops-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  graph = new CallGraph(root);
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('CallGraph.walk', () => {
  it('When walked from a route, then it counts the handler and every repository function its calls (closures included) reach, once each, and not the other routes', () => {
    const result = graph.walk({
      entries: [{ file: 'services/api/src/routes.ts', route: 'POST /pay' }],
      targets: [],
      bridges: [],
    });
    expect(result.hops.map((h) => h.name).sort()).toEqual(['Client.pay', 'Client.send', 'POST /pay', 'helper']);
    expect(result.files).toEqual([
      'libs/util/src/helper.ts',
      'services/api/src/client.ts',
      'services/api/src/routes.ts',
    ]);
    expect(result.calls).toBe(4);
  });

  it('When a bridge joins a client method to another service route, then the walk goes on there and stops at the target', () => {
    const result = graph.walk({
      entries: [{ file: 'services/api/src/routes.ts', route: 'POST /pay' }],
      targets: [{ file: 'libs/util/src/helper.ts', name: 'Port.publish' }],
      bridges: [
        {
          from: { file: 'services/api/src/client.ts', name: 'Client.pay' },
          to: [{ file: 'services/owner/src/handlers.ts', route: 'POST /payments' }],
        },
      ],
    });
    expect(result.reached).toEqual([{ file: 'libs/util/src/helper.ts', name: 'Port.publish' }]);
    expect(result.hops.map((h) => h.name)).toContain('record');
    expect(result.hops.map((h) => h.name)).toContain('Port.publish');
    expect(result.hops).toHaveLength(9);
    expect(result.files).toHaveLength(4);
  });

  it('When a bridge joins a port method to its implementation, then the implementation is the hop and the signature is not; unbridged, the signature is one', () => {
    const entries = [{ file: 'libs/util/src/helper.ts', name: 'publishVia' }];
    const bridged = graph.walk({
      entries,
      targets: [],
      bridges: [
        {
          from: { file: 'libs/util/src/helper.ts', name: 'Port.publish' },
          to: [{ file: 'libs/util/src/helper.ts', name: 'KafkaPort.publish' }],
        },
      ],
    });
    expect(bridged.hops.map((h) => h.name).sort()).toEqual(['KafkaPort.publish', 'publishVia', 'sendIt']);
    const unbridged = graph.walk({ entries, targets: [], bridges: [] });
    expect(unbridged.hops.map((h) => h.name).sort()).toEqual(['Port.publish', 'publishVia']);
  });

  it('When a bridge names a function this tree does not have, then it joins nothing; a missing entry is an error', () => {
    const walk = {
      entries: [{ file: 'services/api/src/client.ts', name: 'Client.pay' }],
      targets: [],
      bridges: [{ from: { file: 'services/api/src/client.ts', name: 'Client.gone' }, to: [] }],
    };
    expect(graph.walk(walk).hops).toHaveLength(2);
    expect(() =>
      graph.walk({ ...walk, entries: [{ file: 'services/api/src/client.ts', name: 'Client.gone' }] }),
    ).toThrow(/no function Client.gone/);
  });
});
