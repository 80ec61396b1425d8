import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalClient } from '@checkout/http';
import { WebhookDispatcherClient } from './webhook-dispatcher.client';

// The budgets' usage read fails open (domain/budgets.ts): every write of the tenant waits on it, so a dispatcher that
// answers 503 is asked once, not again after a backoff.

let server: Server;
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("The gateway's client of the webhook dispatcher", () => {
  it('When the dispatcher answers 503 to a usage read, then it is asked once and the read fails at once', async () => {
    const http = new InternalClient({
      service: 'webhook-dispatcher',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      internalToken: 'internal-token-0123456789',
      timeoutMs: 2_000,
      retries: 2,
    });
    const dispatcher = new WebhookDispatcherClient(http);
    try {
      await expect(dispatcher.tenantUsage({ organizationId: 'org_1', mode: 'test' }, 'req_1')).rejects.toThrow();
      expect(requests).toBe(1);
    } finally {
      await dispatcher.close();
    }
  });
});
