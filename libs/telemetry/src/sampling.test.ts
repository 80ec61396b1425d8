import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { currentTraceCarrier, inSpan, injectTraceHeaders, startSpan, startTelemetry, type Telemetry } from './index';
import { samplerOf } from './sampler';

// What an operation the sampler drops costs: no span, no attributes, no context of its own; its W3C context
// travels on unchanged, so every service keeps the gateway's decision (docs/operations.md, "Traces").
describe('sampling: parentbased_traceidratio at 50 %', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  beforeAll(() => {
    telemetry = startTelemetry(
      {
        serviceName: 'sampled',
        exporter: 'otlp',
        sampler: 'parentbased_traceidratio',
        samplerArg: 0.5,
        disabled: false,
      },
      { exporter },
    );
  });
  afterAll(() => telemetry.shutdown());

  it('an unsampled caller: no span, nothing built, its traceparent passed on as it came', async () => {
    exporter.reset();
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' };
    let built = 0;
    const sent: Record<string, string> = {};
    const server = startSpan('POST /x', {
      kind: 'server',
      parent: incoming,
      attributes: () => {
        built += 1;
        return {};
      },
    });
    expect(server.recording).toBe(false);
    await server.run(async () => {
      const client = startSpan('POST orders', { kind: 'client' });
      // The parent's own context: nothing new under an unsampled parent.
      expect(client).toBe(server);
      await inSpan('publish', { kind: 'producer' }, async (span) => injectTraceHeaders(sent, span));
      expect(currentTraceCarrier()).toEqual(incoming);
    });
    server.end();
    await telemetry.flush();
    expect(built).toBe(0);
    expect(sent).toEqual(incoming);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('a sampled caller: the spans are recorded under it, whatever the ratio', async () => {
    exporter.reset();
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await inSpan('POST /x', { kind: 'server', parent: incoming }, async (span) => {
      expect(span.recording).toBe(true);
    });
    await telemetry.flush();
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('a new trace is kept at the ratio; a dropped one still carries a new trace id, flagged unsampled', async () => {
    exporter.reset();
    const carriers = Array.from({ length: 400 }, () => {
      const span = startSpan('GET /v0/orders', { kind: 'server', parent: 'none' });
      span.end();
      return span.carrier()!.traceparent;
    });
    await telemetry.flush();
    const dropped = carriers.filter((traceparent) => traceparent.endsWith('-00'));
    expect(dropped.length).toBeGreaterThan(120);
    expect(dropped.length).toBeLessThan(280);
    expect(exporter.getFinishedSpans()).toHaveLength(carriers.length - dropped.length);
    for (const traceparent of dropped) expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(new Set(dropped).size).toBe(dropped.length);
  });
});

describe('samplerOf', () => {
  it('decides a trace id as OpenTelemetry’s TraceIdRatioBasedSampler does, so every version agrees', () => {
    const ours = samplerOf('traceidratio', 0.3);
    const theirs = new TraceIdRatioBasedSampler(0.3);
    for (let i = 0; i < 500; i += 1) {
      const traceId = randomBytes(16).toString('hex');
      const expected = theirs.shouldSample(ROOT_CONTEXT, traceId).decision;
      expect(ours(undefined, traceId)).toBe(expected === SamplingDecision.RECORD_AND_SAMPLED);
    }
  });

  it('the parent-based ones follow the parent, the others do not look at it', () => {
    const unsampled = { sampled: false } as Parameters<ReturnType<typeof samplerOf>>[0];
    expect(samplerOf('parentbased_always_on', 1)(unsampled, 'f'.repeat(32))).toBe(false);
    expect(samplerOf('parentbased_always_on', 1)(undefined, 'f'.repeat(32))).toBe(true);
    expect(samplerOf('parentbased_always_off', 1)({ sampled: true } as typeof unsampled, 'f'.repeat(32))).toBe(true);
    expect(samplerOf('always_on', 1)(unsampled, 'f'.repeat(32))).toBe(true);
    expect(samplerOf('always_off', 1)(undefined, 'f'.repeat(32))).toBe(false);
    expect(samplerOf('traceidratio', 0)(undefined, '0'.repeat(31) + '1')).toBe(false);
  });
});
