import { describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { ServiceRuntime, type RuntimeConfig } from './service-runtime';

const config = (drainMs: number): RuntimeConfig => ({
  HTTP_HOST: '127.0.0.1',
  PORT: 0,
  HTTP_HEADERS_TIMEOUT_MS: 10_000,
  HTTP_REQUEST_TIMEOUT_MS: 30_000,
  MONGODB_URL: 'mongodb://unused',
  MONGODB_DATABASE: 'unused',
  SHUTDOWN_DRAIN_MS: drainMs,
  SHUTDOWN_GRACE_MS: 1_000,
});
const logger = createLogger('service-runtime-test', { level: 'silent' });

async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );
}

describe('ServiceRuntime.stop', () => {
  it('When stopped, then the listeners close first and every part stops after them, newest first, a failing one included', async () => {
    const runtime = new ServiceRuntime({ service: 'svc', config: config(0), logger });
    const stopped: string[] = [];
    runtime.onStop('registered at build time', () => void stopped.push('build'));
    const { app } = runtime.httpApp();
    const server = await runtime.listen(app);
    let listenerOpenWhenPartsStopped: boolean | undefined;
    runtime.onStop('first', async () => {
      stopped.push('first');
    });
    runtime.onStop('failing', async () => {
      stopped.push('failing');
      throw new Error('cannot stop');
    });
    runtime.onStop('last', async () => {
      listenerOpenWhenPartsStopped = await answers(server.url);
      stopped.push('last');
    });

    await runtime.stop();

    expect(stopped).toEqual(['last', 'failing', 'first', 'build']);
    expect(listenerOpenWhenPartsStopped).toBe(false);
  });

  it('When stopped twice, then each part stops once', async () => {
    const runtime = new ServiceRuntime({ service: 'svc', config: config(0), logger });
    let stops = 0;
    runtime.runInBackground('task', { start: () => {}, stop: async () => void (stops += 1) });
    await runtime.stop();
    await runtime.stop();
    expect(stops).toBe(1);
  });

  it('When stopping, then /readyz answers 503 during the drain while requests are still served', async () => {
    const runtime = new ServiceRuntime({ service: 'svc', config: config(1_000), logger });
    const { app } = runtime.httpApp();
    const server = await runtime.listen(app);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    const stopping = runtime.stop();
    expect(runtime.isShuttingDown()).toBe(true);
    const readyz = await fetch(`${server.url}/readyz`);
    const healthz = await fetch(`${server.url}/healthz`);
    await stopping;

    expect(readyz.status).toBe(503);
    expect(readyz.headers.get('connection')).toBe('close');
    expect(healthz.status).toBe(200);
    expect(await answers(server.url)).toBe(false);
  });
});
