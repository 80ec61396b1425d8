import { afterEach, describe, expect, it } from 'vitest';
import { startSpan, startTelemetry, type Telemetry } from '@checkout/telemetry';
import { startTraceSink, type TraceSink } from './trace-sink';

let sink: TraceSink | undefined;
let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  await sink?.close();
});

describe('the trace sink of the local tools', () => {
  it('When a service exports spans through the OTLP exporter the services use, then the sink counts its batch under its name', async () => {
    sink = await startTraceSink();
    telemetry = startTelemetry({
      serviceName: 'webhook-dispatcher',
      tracesEndpoint: `${sink.endpoint}/v1/traces`,
      sampler: 'always_on',
      samplerArg: 1,
      disabled: false,
    });
    expect(telemetry.enabled).toBe(true);
    startSpan('GET /internal/events', { kind: 'server', parent: 'none' }).end();
    await telemetry.flush();
    expect(sink.batches()).toEqual({ orders: 0, sessions: 0, 'webhook-dispatcher': 1, gateway: 0 });
  });
});
