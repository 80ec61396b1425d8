// A span this process records: the W3C context it adds to the trace, its name, kind, attributes, status and
// times, in the shape OpenTelemetry's span processors and exporters read (ReadableSpan), so the batch processor
// and the OTLP and Zipkin exporters take it as it is. One object per span, its own handle: no OpenTelemetry
// Context, Tracer, id generator or metrics on the way (libs/telemetry's index.ts; docs/operations.md, "Traces").
import { createTraceState, SpanStatusCode, type HrTime, type SpanContext, type SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';
import { SPAN_ATTRIBUTES, type SpanAttributeName, type SpanAttributes } from './attributes';
import { TraceContext } from './ambient-context';

/** What every span of the process shares: where it goes when it ends, and what it is from. */
export interface Recorder {
  readonly processor: SpanProcessor;
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
}

/** A string attribute longer than this is cut (a route, an id: never near it). */
const MAX_ATTRIBUTE_LENGTH = 256;
const UNSET = { code: SpanStatusCode.UNSET } as const;
const ERROR = { code: SpanStatusCode.ERROR } as const;
const NO_LINKS: ReadableSpan['links'] = [];
const NO_EVENTS: TimedEvent[] = [];
const NOT_ENDED: HrTime = [0, 0];

// Read once: `performance.timeOrigin` is a getter that calls into the runtime each time.
const TIME_ORIGIN = performance.timeOrigin;
/** Milliseconds since the epoch, to the microsecond. */
const now = (): number => TIME_ORIGIN + performance.now();

/** To whole microseconds: Zipkin's span API takes integers only, and refuses a batch holding a fraction. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e3) * 1e3;
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

// What every span shares is on the prototype, not copied into each one: a span is made per operation.
export class RecordedSpan extends TraceContext implements ReadableSpan {
  readonly attributes: Record<string, string | number | boolean> = {};
  status: ReadableSpan['status'] = UNSET;
  readonly startTime: HrTime;
  endTime: HrTime = NOT_ENDED;
  duration: HrTime = NOT_ENDED;
  ended = false;
  private readonly startedAt = now();

  constructor(
    private readonly recorder: Recorder,
    public name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: TraceContext | undefined,
    traceId: string,
    spanId: string,
  ) {
    super(traceId, spanId, true, parentSpanContext?.tracestate, false);
    this.startTime = hrTime(this.startedAt);
  }

  override get recording(): boolean {
    return true;
  }

  get links(): ReadableSpan['links'] {
    return NO_LINKS;
  }

  get events(): TimedEvent[] {
    return NO_EVENTS;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }

  get resource(): ReadableSpan['resource'] {
    return this.recorder.resource;
  }

  get instrumentationScope(): ReadableSpan['instrumentationScope'] {
    return this.recorder.instrumentationScope;
  }

  spanContext(): SpanContext {
    if (this.tracestate === undefined) return this;
    const { traceId, spanId, tracestate } = this;
    return { traceId, spanId, traceFlags: 1, isRemote: false, traceState: createTraceState(tracestate) };
  }

  /** Only the names of SPAN_ATTRIBUTES, with a value: anything else would be a way for customer data to leave. */
  override setAttributes(attributes: SpanAttributes): void {
    if (this.ended) return;
    for (const name in attributes) {
      const value = attributes[name as SpanAttributeName];
      if (value === undefined || value === null || !SPAN_ATTRIBUTES.has(name as SpanAttributeName)) continue;
      this.attributes[name] =
        typeof value === 'string' && value.length > MAX_ATTRIBUTE_LENGTH ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : value;
    }
  }

  /** The span failed: status ERROR, with the error's class or code only (a message may hold customer data). */
  override fail(error?: unknown): void {
    if (this.ended) return;
    this.status = ERROR;
    const type = errorType(error);
    if (type) this.attributes['error.type'] = type;
  }

  override rename(name: string): void {
    if (!this.ended) this.name = name;
  }

  override end(): void {
    if (this.ended) return;
    const endedAt = now();
    this.endTime = hrTime(endedAt);
    this.duration = hrTime(endedAt - this.startedAt);
    this.ended = true;
    this.recorder.processor.onEnd(this);
  }
}

/** An error's class and code (`DomainError: ORDER_NOT_PAYABLE`), never its message. */
function errorType(error: unknown): string | undefined {
  if (!(error instanceof Error)) return error === undefined ? undefined : typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name}: ${code}` : error.name;
}
