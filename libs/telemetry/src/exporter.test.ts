import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exporterFor, inSpan, startTelemetry, type TelemetryConfig } from './index';

// OTEL_TRACES_EXPORTER chooses where spans go (docs/operations.md, "Traces"; docs/decisions.md, "Traces locally:
// straight to Zipkin"): OTLP to a collector by default, Zipkin's span API directly for the local stack.

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** A loopback HTTP receiver on a free port that answers 202 and keeps what it was sent. */
let server: Server;
let base = '';
const received: Received[] = [];

async function read(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void read(request).then((body) => {
      received.push({ path: request.url ?? '', contentType: String(request.headers['content-type']), body });
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const settings = (overrides: Partial<TelemetryConfig>): TelemetryConfig => ({
  serviceName: 'orders',
  exporter: 'otlp',
  sampler: 'always_on',
  samplerArg: 1,
  disabled: false,
  ...overrides,
});

describe('the exporter OTEL_TRACES_EXPORTER chooses', () => {
  it('otlp (the default) is the OTLP/HTTP exporter, zipkin the Zipkin one; none, or no endpoint, is no exporter', () => {
    expect(exporterFor({ exporter: 'otlp', tracesEndpoint: `${base}/v1/traces` })).toBeInstanceOf(OTLPTraceExporter);
    expect(exporterFor({ exporter: 'zipkin', tracesEndpoint: `${base}/api/v2/spans` })).toBeInstanceOf(ZipkinExporter);
    expect(exporterFor({ exporter: 'none', tracesEndpoint: `${base}/v1/traces` })).toBeUndefined();
    expect(exporterFor({ exporter: 'zipkin', tracesEndpoint: undefined })).toBeUndefined();
    expect(startTelemetry(settings({ exporter: 'none', tracesEndpoint: `${base}/v1/traces` })).enabled).toBe(false);
  });

  it('zipkin: the spans arrive at the endpoint as Zipkin v2 JSON, named for the service, parented', async () => {
    received.length = 0;
    const telemetry = startTelemetry(settings({ exporter: 'zipkin', tracesEndpoint: `${base}/api/v2/spans` }));
    try {
      expect(telemetry.enabled).toBe(true);
      await inSpan('POST /v0/orders', { kind: 'server', parent: 'none' }, async () => {
        await inSpan('orders.events publish', { kind: 'producer', attributes: { 'checkout.order_id': 'ord_1' } }, () =>
          Promise.resolve(),
        );
      });
      await telemetry.flush();
    } finally {
      await telemetry.shutdown();
    }
    expect(received.map(({ path, contentType }) => [path, contentType])).toEqual([
      ['/api/v2/spans', 'application/json'],
    ]);
    const spans = JSON.parse(received[0]!.body.toString('utf8')) as {
      id: string;
      parentId?: string;
      name: string;
      kind?: string;
      localEndpoint: { serviceName: string };
      tags: Record<string, string>;
      timestamp: number;
      duration: number;
    }[];
    const server = spans.find((span) => span.kind === 'SERVER')!;
    const producer = spans.find((span) => span.kind === 'PRODUCER')!;
    expect([server.name, server.localEndpoint.serviceName]).toEqual(['POST /v0/orders', 'orders']);
    expect(producer.parentId).toBe(server.id);
    expect(producer.tags['checkout.order_id']).toBe('ord_1');
    // Zipkin takes whole microseconds only: one fraction and it refuses the whole batch.
    for (const span of spans) expect([span.timestamp, span.duration].every(Number.isInteger)).toBe(true);
  });

  it('otlp: the spans arrive at the endpoint as OTLP protobuf', async () => {
    received.length = 0;
    const telemetry = startTelemetry(settings({ tracesEndpoint: `${base}/v1/traces` }));
    try {
      await inSpan('GET /health', { kind: 'server', parent: 'none' }, () => Promise.resolve());
      await telemetry.flush();
    } finally {
      await telemetry.shutdown();
    }
    expect(received.map(({ path, contentType }) => [path, contentType])).toEqual([
      ['/v1/traces', 'application/x-protobuf'],
    ]);
    expect(received[0]!.body.includes('GET /health')).toBe(true);
  });
});
