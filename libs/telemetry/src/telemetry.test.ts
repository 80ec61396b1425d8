import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeTraceIds,
  annotateActiveSpan,
  currentTraceCarrier,
  inSpan,
  injectTraceHeaders,
  startSpan,
  startTelemetry,
  tracingEnabled,
} from './index';
import { collectSpans } from './testing';

describe('telemetry off (no OTLP endpoint configured)', () => {
  it('registers nothing and hands out no context: nothing is exported, nothing is carried', async () => {
    const telemetry = startTelemetry({
      serviceName: 'x',
      exporter: 'otlp',
      sampler: 'parentbased_always_on',
      samplerArg: 1,
      disabled: false,
    });
    expect(telemetry.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    const headers: Record<string, string> = {};
    const result = await inSpan('work', { kind: 'internal' }, async (span) => {
      injectTraceHeaders(headers);
      expect(span.carrier()).toBeUndefined();
      return 42;
    });
    expect(result).toBe(42);
    expect(headers).toEqual({});
    expect(currentTraceCarrier()).toBeUndefined();
    expect(activeTraceIds()).toBeUndefined();
  });

  it('OTEL_SDK_DISABLED wins over a configured endpoint', () => {
    const telemetry = startTelemetry({
      serviceName: 'x',
      exporter: 'otlp',
      tracesEndpoint: 'http://127.0.0.1:1/v1/traces',
      sampler: 'always_on',
      samplerArg: 1,
      disabled: true,
    });
    expect(telemetry.enabled).toBe(false);
  });
});

describe('telemetry on', () => {
  let collector: ReturnType<typeof collectSpans>;
  beforeAll(() => {
    collector = collectSpans('svc');
  });
  afterAll(() => collector.shutdown());

  it('continues a W3C traceparent that arrived, and injects the child into what it sends', async () => {
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const sent: Record<string, string> = {};
    await inSpan('POST /x', { kind: 'server', parent: incoming }, async () => {
      await inSpan('POST orders', { kind: 'client' }, async () => injectTraceHeaders(sent));
    });
    await collector.flush();
    const spans = collector.spans();
    const server = spans.find((s) => s.name === 'POST /x')!;
    const client = spans.find((s) => s.name === 'POST orders')!;
    expect(server.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(server.parentSpanId).toBe('b7ad6b7169203331');
    expect(client.parentSpanId).toBe(server.spanId);
    expect(sent.traceparent).toBe(`00-${server.traceId}-${client.spanId}-01`);
  });

  it('a stored carrier (an outbox entry) parents a span started long after, in another context', async () => {
    collector.reset();
    let stored: ReturnType<typeof currentTraceCarrier>;
    await inSpan('request', { kind: 'server', parent: 'none' }, async () => {
      stored = currentTraceCarrier();
    });
    const publish = startSpan('publish', { kind: 'producer', parent: stored });
    publish.end();
    await collector.flush();
    const [request, producer] = ['request', 'publish'].map((name) => collector.spans().find((s) => s.name === name)!);
    expect(producer!.traceId).toBe(request!.traceId);
    expect(producer!.parentSpanId).toBe(request!.spanId);
  });

  it('keeps only the listed attributes, and records an error by its class and code, never its message', async () => {
    collector.reset();
    const failure = Object.assign(new Error('card 4242424242424242 refused for jane@example.com'), { code: 'X' });
    await expect(
      // A session id is not a listed name (it opens the hosted page): typed out of SpanAttributes, dropped if forced.
      inSpan(
        'pay',
        { kind: 'internal', attributes: { ['checkout.session_id' as 'checkout.event_id']: 'cs_1' } },
        async () => {
          annotateActiveSpan({ 'checkout.order_id': 'ord_1' });
          annotateActiveSpan({ ['customer.email' as 'checkout.order_id']: 'jane@example.com' });
          throw failure;
        },
      ),
    ).rejects.toBe(failure);
    await collector.flush();
    const [span] = collector.spans();
    expect(span!.status).toBe('error');
    expect(span!.attributes).toEqual({
      'checkout.order_id': 'ord_1',
      'error.type': 'Error: X',
    });
  });

  it('gives log lines the active span ids', async () => {
    await inSpan('x', { kind: 'internal' }, async (span) => {
      const ids = activeTraceIds();
      expect(ids?.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(span.carrier()?.traceparent).toBe(`00-${ids?.trace_id}-${ids?.span_id}-01`);
    });
    expect(activeTraceIds()).toBeUndefined();
  });

  it('a carrier that does not parse starts a new trace rather than failing', async () => {
    collector.reset();
    startSpan('bad', { kind: 'consumer', parent: { traceparent: 'garbage' } }).end();
    await collector.flush();
    expect(collector.spans()[0]!.parentSpanId).toBeUndefined();
  });
});
