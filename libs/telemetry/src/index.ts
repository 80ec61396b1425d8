// The one place that imports OpenTelemetry (docs/engineering.md, import boundaries): the tracer provider, W3C
// trace-context propagation, the exporter (OTLP, or Zipkin's v2 JSON) and the sampler, all set from the standard
// OTEL_* settings that a service's config parses (libs/config's telemetryConfigShape). Everything else takes
// spans and trace contexts through the small API below, whose types are our own, so no OpenTelemetry type
// crosses a package.
//
// Off unless the exporter's endpoint is configured: then no provider is registered, the API below hands out
// nothing and every helper runs its function as it is (no span, no context switch, no allocation beyond a branch).
import {
  context,
  propagation,
  trace,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { SPAN_ATTRIBUTES, type SpanAttributeName, type SpanAttributes } from './attributes';
import { AmbientContextManager } from './ambient-context';

export { SPAN_ATTRIBUTES, type SpanAttributeName, type SpanAttributes } from './attributes';
export { currentRequestId, withRequestId } from './ambient-context';

/** The samplers of the OTEL_TRACES_SAMPLER specification. */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

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

/** The W3C trace context of a span, as it travels: in HTTP and Kafka headers, and stored with an outbox entry. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

export interface SpanOptions {
  kind: SpanKindName;
  /**
   * What the span continues: the active span (default), a context that arrived or was stored (headers, an outbox
   * entry, a delivery), or nothing (a new trace). A carrier that does not parse starts a new trace.
   */
  parent?: 'active' | 'none' | TraceCarrier | Readonly<Record<string, string | string[] | undefined>> | undefined;
  attributes?: SpanAttributes;
}

/** A span in progress; every method does nothing while tracing is off. */
export interface SpanHandle {
  readonly recording: boolean;
  setAttributes(attributes: SpanAttributes): void;
  /** The span failed: status ERROR, with the error's class or code only (a message may hold customer data). */
  fail(error?: unknown): void;
  rename(name: string): void;
  /** Runs `fn` with this span active: spans started and contexts injected inside it descend from it. */
  run<T>(fn: () => T): T;
  /** This span's context, to send or store (undefined while tracing is off). */
  carrier(): TraceCarrier | undefined;
  end(): void;
}

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

const INSTRUMENTATION = '@checkout/telemetry';

let provider: TracerProvider | undefined;
// The provider's tracer, taken once: the API's getTracer goes through its proxy provider on every call.
let tracer: Tracer | undefined;

export interface Telemetry {
  readonly enabled: boolean;
  /** Exports what has ended so far (tests, a tool about to read the backend). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops; called last when the service stops. */
  shutdown(): Promise<void>;
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
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
 * Registers the process's tracer provider, context manager and W3C propagator (once per process: the services'
 * main.ts, through libs/service's runService). Does nothing, and costs nothing after, when disabled or when no
 * exporter is configured. `exporter` replaces the configured one (tests collect spans in memory).
 */
export function startTelemetry(config: TelemetryConfig, options: { exporter?: SpanExporter } = {}): Telemetry {
  const exporter = config.disabled || provider ? undefined : (options.exporter ?? exporterFor(config));
  if (!exporter) return { enabled: false, flush: async () => {}, shutdown: async () => {} };
  provider = new TracerProvider({
    resource: resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }),
    sampler: samplerOf(config.sampler, config.samplerArg),
    spanProcessors: [
      // Spans leave in batches off the request path; a full queue drops spans rather than holding memory.
      new BatchSpanProcessor({ exporter, maxQueueSize: 8_192, maxExportBatchSize: 512, scheduledDelayMillis: 500 }),
    ],
    spanLimits: { attributeValueLengthLimit: 256 },
  });
  // The request id's storage carries the trace context too (ambient-context.ts: one storage, not two).
  context.setGlobalContextManager(new AmbientContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer(INSTRUMENTATION);
  const registered = provider;
  return {
    enabled: true,
    flush: () => registered.forceFlush(),
    async shutdown() {
      if (provider !== registered) return;
      await registered.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      provider = undefined;
      tracer = undefined;
    },
  };
}

/** Whether spans are being made in this process. */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

const headerGetter: TextMapGetter<Readonly<Record<string, string | string[] | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

function parentContext(parent: SpanOptions['parent']): Context {
  if (parent === undefined || parent === 'active') return context.active();
  if (parent === 'none') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, parent, headerGetter);
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

/** Only the names of SPAN_ATTRIBUTES, with a value: anything else would be a way for customer data to leave. */
function cleanAttributes(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const clean: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && SPAN_ATTRIBUTES.has(name as SpanAttributeName)) clean[name] = value;
  }
  return clean;
}

function handleOf(span: Span): SpanHandle {
  return {
    recording: span.isRecording(),
    setAttributes: (attributes) => {
      span.setAttributes(cleanAttributes(attributes));
    },
    fail: (error) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      const type = errorType(error);
      if (type) span.setAttribute('error.type', type);
    },
    rename: (name) => {
      span.updateName(name);
    },
    run: (fn) => context.with(trace.setSpan(context.active(), span), fn),
    carrier: () => carrierOf(trace.setSpan(ROOT_CONTEXT, span)),
    end: () => span.end(),
  };
}

/** An error's class and code (`DomainError: ORDER_NOT_PAYABLE`), never its message. */
function errorType(error: unknown): string | undefined {
  if (!(error instanceof Error)) return error === undefined ? undefined : typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name}: ${code}` : error.name;
}

function carrierOf(ctx: Context): TraceCarrier | undefined {
  const out: Record<string, string> = {};
  propagation.inject(ctx, out);
  if (!out.traceparent) return undefined;
  return out.tracestate
    ? { traceparent: out.traceparent, tracestate: out.tracestate }
    : { traceparent: out.traceparent };
}

/** Starts a span; the caller ends it (a middleware around `next`, a send whose answer comes later). */
export function startSpan(name: string, options: SpanOptions): SpanHandle {
  if (!tracer) return OFF;
  const span = tracer.startSpan(
    name,
    { kind: KINDS[options.kind], attributes: cleanAttributes(options.attributes ?? {}) },
    parentContext(options.parent),
  );
  return handleOf(span);
}

/** Runs `fn` in a new span, which ends when `fn` settles and fails when it throws. */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  if (!provider) return fn(OFF);
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
  return provider ? carrierOf(context.active()) : undefined;
}

/** Adds the active span's `traceparent`/`tracestate` to `headers` (an internal HTTP call, a Kafka message). */
export function injectTraceHeaders(headers: Record<string, string>, from?: SpanHandle): void {
  const carrier = from ? from.carrier() : currentTraceCarrier();
  if (!carrier) return;
  headers.traceparent = carrier.traceparent;
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
}

/** Attributes on the active span (a route adding the ids it resolved). */
export function annotateActiveSpan(attributes: SpanAttributes): void {
  if (!provider) return;
  trace.getActiveSpan()?.setAttributes(cleanAttributes(attributes));
}

/** The active span's ids, for log lines (libs/logger's mixin): a log line leads to its trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!provider) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
}

/** Traceparent header names, which proxies must pass and the hosted page's pass-through forwards. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
