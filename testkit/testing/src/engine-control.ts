import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface KafkaControl {
  restartKafka(): Promise<void>;
  stopKafka(): Promise<void>;
  startKafka(): Promise<void>;
  pauseKafka(): Promise<void>;
  resumeKafka(): Promise<void>;
}

/** Each action the endpoint takes (`POST /kafka/<action>`) and the KafkaControl method that carries it out. */
const METHODS = {
  restart: 'restartKafka',
  stop: 'stopKafka',
  start: 'startKafka',
  pause: 'pauseKafka',
  resume: 'resumeKafka',
} as const satisfies Record<string, keyof KafkaControl>;
type Action = keyof typeof METHODS;
const isAction = (value: string | undefined): value is Action => value !== undefined && Object.hasOwn(METHODS, value);

/**
 * Test workers run in other processes than the one that owns the engines; this loopback endpoint lets a
 * test restart, stop or stall the broker it runs against (broker-restart, broker-stall and outage tests).
 * Its address travels in ENGINES_CONTROL_URL.
 */
export async function serveEngineControl(engines: KafkaControl): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const action = /^\/kafka\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || !isAction(action)) {
      res.writeHead(404).end();
      return;
    }
    const run = engines[METHODS[action]]();
    run.then(
      () => res.writeHead(204).end(),
      (err: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The client side, for tests: throws if the engines were not started with a control endpoint. */
export function kafkaControl(controlUrl = process.env.ENGINES_CONTROL_URL): KafkaControl {
  const call = async (action: Action) => {
    if (!controlUrl) throw new Error('ENGINES_CONTROL_URL is not set: the broker cannot be controlled from this test');
    const response = await request(`${controlUrl}/kafka/${action}`, {
      method: 'POST',
      headersTimeout: 180_000,
      bodyTimeout: 180_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 204) throw new Error(`kafka ${action} failed: ${text}`);
  };
  return {
    restartKafka: () => call('restart'),
    stopKafka: () => call('stop'),
    startKafka: () => call('start'),
    pauseKafka: () => call('pause'),
    resumeKafka: () => call('resume'),
  };
}
