import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICES, type ServiceName } from './process-stack';

/**
 * An OTLP/HTTP endpoint on loopback that takes every trace batch, keeps none of it, and counts the batches per
 * service: where a local tool turns tracing on without a collector (the mixed-version soak, in the new code only;
 * the contract recording, so that internal calls and outbox rows carry their trace context as in production).
 * It answers 200 with an empty body, which is an empty ExportTraceServiceResponse (no partial success) in
 * protobuf.
 */
export interface TraceSink {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  readonly endpoint: string;
  /** Batches received per service, by the `service.name` resource attribute the batch carries. */
  batches(): Record<ServiceName, number>;
  close(): Promise<void>;
}

/**
 * The bytes of `service.name = <name>` in an OTLP protobuf batch: KeyValue{1: key, 2: AnyValue{1: string_value}},
 * each field a tag byte and a one-byte length (names are short). Found by bytes, not by decoding the batch: the
 * sink needs no protobuf schema, and a batch holds one resource per service.
 */
function serviceNameMarker(name: string): Buffer {
  const value = Buffer.from(name, 'utf8');
  return Buffer.concat([
    Buffer.from('\x0a\x0cservice.name', 'latin1'),
    Buffer.from([0x12, value.length + 2, 0x0a, value.length]),
    value,
  ]);
}

export async function startTraceSink(): Promise<TraceSink> {
  const counts = Object.fromEntries(SERVICES.map((s) => [s, 0])) as Record<ServiceName, number>;
  const markers = SERVICES.map((service) => ({ service, bytes: serviceNameMarker(service) }));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = Buffer.concat(chunks);
        for (const { service, bytes } of markers) if (body.includes(bytes)) counts[service] += 1;
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    batches: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
