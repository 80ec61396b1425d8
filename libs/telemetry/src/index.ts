// The one place that imports OpenTelemetry (docs/engineering.md, import boundaries): its batch span processor and
// exporters (OTLP, or Zipkin's v2 JSON), set from the standard OTEL_* settings that a service's config parses
// (libs/config's telemetryConfigShape). Spans, sampling and W3C propagation are this library's own (span.ts,
// sampler.ts, ambient-context.ts): what tracing costs an operation follows what is sampled. A dropped operation
// makes no span, attribute or context of its own: its handle is its parent's W3C context, or for a new trace one
// small object, and only that context travels on. Everything else takes spans and trace contexts through the
// small API below, whose types are our own, so no OpenTelemetry type crosses a package.
//
// Off unless the exporter's endpoint is configured: then nothing is registered, the API below hands out nothing
// and every helper runs its function as it is (no span, no context switch, no allocation beyond a branch).
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { SpanAttributes } from './attributes';
import { samplerOf, type Sampler, type SamplerName } from './sampler';
import { RecordedSpan, type Recorder } from './span';
import {
  activeTrace,
  extractContext,
  randomId,
  TraceContext,
  type SpanHandle,
  type TraceCarrier,
} from './ambient-context';

export { SPAN_ATTRIBUTES, type SpanAttributeName, type SpanAttributes } from './attributes';
export { currentRequestId, pooledRandom, withRequestId, type SpanHandle, type TraceCarrier } from './ambient-context';

export { SAMPLERS, type SamplerName } from './sampler';

/**
 * The exporters of the OTEL_TRACES_EXPORTER specification that a service can use: `otlp` (the default: OTLP/HTTP
 * protobuf, to a collector in a cluster), `zipkin` (Zipkin's v2 JSON span API, straight to a Zipkin: the local
 * stack, docs/decisions.md "Traces locally: straight to Zipkin"), `none` (no exporter: tracing off).
 */
export const TRACES_EXPORTERS = ['otlp', 'zipkin', 'none'] as const;
export type TracesExporterName = (typeof TRACES_EXPORTERS)[number];

export interface TelemetryConfig {
  /** OTEL_SERVICE_NAME, else the service's own name. */
  serviceName: string;
  /** OTEL_TRACES_EXPORTER: where spans go, and in what format; `otlp` when absent, as in the specification. */
  exporter?: TracesExporterName | undefined;
  /**
   * The full URL spans are sent to: for `otlp`, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
   * + `/v1/traces`; for `zipkin`, OTEL_EXPORTER_ZIPKIN_ENDPOINT (`…/api/v2/spans`).
   */
  tracesEndpoint?: string | undefined;
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the `*traceidratio` samplers. */
  samplerArg: number;
  /** OTEL_SDK_DISABLED. */
  disabled: boolean;
  /** OTEL_RESOURCE_ATTRIBUTES, e.g. deployment.environment.name=production. */
  resourceAttributes?: Record<string, string>;
}

export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

export interface SpanOptions {
  kind: SpanKindName;
  /**
   * What the span continues: the active span (default), a context that arrived or was stored (headers, an outbox
   * entry, a delivery), or nothing (a new trace). A carrier that does not parse starts a new trace.
   */
  parent?: 'active' | 'none' | TraceCarrier | Readonly<Record<string, string | string[] | undefined>> | undefined;
  /** Set only when the span is recorded: a function is called only then, so a dropped span builds none. */
  attributes?: SpanAttributes | (() => SpanAttributes);
}

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

const INSTRUMENTATION = '@checkout/telemetry';

interface Tracing extends Recorder {
  readonly sampled: Sampler;
}

let tracing: Tracing | undefined;

export interface Telemetry {
  readonly enabled: boolean;
  /** Exports what has ended so far (tests, a tool about to read the backend). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops; called last when the service stops. */
  shutdown(): Promise<void>;
}

/**
 * The exporter the settings choose, or undefined when they choose none (`none`, or no endpoint to send to).
 * Exported for its unit test: the choice is made from the environment, once, at start.
 */
export function exporterFor(config: Pick<TelemetryConfig, 'exporter' | 'tracesEndpoint'>): SpanExporter | undefined {
  const url = config.tracesEndpoint;
  if (url === undefined) return undefined;
  switch (config.exporter ?? 'otlp') {
    case 'otlp':
      return new OTLPTraceExporter({ url });
    case 'zipkin':
      // service.name comes from the resource, as with OTLP.
      return new ZipkinExporter({ url });
    case 'none':
      return undefined;
  }
}

/**
 * Starts tracing for the process (once: the services' main.ts, through libs/service's runService). Does nothing,
 * and costs nothing after, when disabled or when no exporter is configured. `exporter` replaces the configured
 * one (tests collect spans in memory).
 */
export function startTelemetry(config: TelemetryConfig, options: { exporter?: SpanExporter } = {}): Telemetry {
  const exporter = config.disabled || tracing ? undefined : (options.exporter ?? exporterFor(config));
  if (!exporter) return { enabled: false, flush: async () => {}, shutdown: async () => {} };
  // Spans leave in batches off the request path; a full queue drops spans rather than holding memory.
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize: 8_192,
    maxExportBatchSize: 512,
    // Every 2 s rather than OpenTelemetry's 5: a trace is searchable within seconds, and an export's fixed cost
    // (its HTTP request, its serializer's set-up) is paid four times less often than at 500 ms.
    scheduledDelayMillis: 2_000,
  });
  const started: Tracing = {
    processor,
    resource: resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }),
    instrumentationScope: { name: INSTRUMENTATION },
    sampled: samplerOf(config.sampler, config.samplerArg),
  };
  tracing = started;
  return {
    enabled: true,
    flush: () => processor.forceFlush(),
    async shutdown() {
      if (tracing !== started) return;
      await processor.shutdown();
      tracing = undefined;
    },
  };
}

/** Whether spans are being made in this process. */
export function tracingEnabled(): boolean {
  return tracing !== undefined;
}

const OFF: SpanHandle = {
  recording: false,
  setAttributes: () => {},
  fail: () => {},
  rename: () => {},
  run: (fn) => fn(),
  carrier: () => undefined,
  end: () => {},
};

/**
 * Starts a span; the caller ends it (a middleware around `next`, a send whose answer comes later). When the
 * sampler drops it, the handle is the W3C context alone: the parent's own (nothing new under an unsampled
 * parent), or a new trace's, so that what it calls and sends keeps the decision.
 */
export function startSpan(name: string, options: SpanOptions): SpanHandle {
  if (!tracing) return OFF;
  const { parent: from = 'active' } = options;
  const parent = from === 'active' ? activeTrace() : from === 'none' ? undefined : extractContext(from);
  const traceId = parent?.traceId ?? randomId(16);
  if (!tracing.sampled(parent, traceId)) {
    if (parent && !parent.sampled) return parent;
    return new TraceContext(traceId, parent?.spanId ?? randomId(8), false, parent?.tracestate, false);
  }
  const span = new RecordedSpan(tracing, name, KINDS[options.kind], parent, traceId, randomId(8));
  const { attributes } = options;
  if (attributes) span.setAttributes(typeof attributes === 'function' ? attributes() : attributes);
  return span;
}

/** Runs `fn` in a new span, which ends when `fn` settles and fails when it throws. */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  if (!tracing) return fn(OFF);
  const span = startSpan(name, options);
  try {
    return await span.run(() => fn(span));
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}

/** The active span's context, to store with what it caused (an outbox entry, a delivery). */
export function currentTraceCarrier(): TraceCarrier | undefined {
  return tracing ? activeTrace()?.carrier() : undefined;
}

/** Adds the active span's `traceparent`/`tracestate` to `headers` (an internal HTTP call, a Kafka message). */
export function injectTraceHeaders(headers: Record<string, string>, from?: SpanHandle): void {
  const carrier = from ? from.carrier() : currentTraceCarrier();
  if (!carrier) return;
  headers.traceparent = carrier.traceparent;
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
}

/** Attributes on the active span, when it is recorded (a route adding the ids it resolved). */
export function annotateActiveSpan(attributes: SpanAttributes): void {
  if (tracing) activeTrace()?.setAttributes(attributes);
}

/** The active span's ids, for log lines (libs/logger's mixin): a log line leads to its trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const trace = tracing ? activeTrace() : undefined;
  return trace ? { trace_id: trace.traceId, span_id: trace.spanId } : undefined;
}

/** Traceparent header names, which proxies must pass and the hosted page's pass-through forwards. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
