// What travels with a request through every await of a process: its request id (log lines) and, with tracing on,
// its trace context (spans, propagation). Both in ONE AsyncLocalStorage: Node copies each storage's value onto
// every promise and callback a request creates, so a second storage beside the logger's would be paid again on
// every async step of the process while tracing is on (docs/operations.md, "Traces").
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';
import type { SpanAttributes } from './attributes';

interface Ambient {
  readonly requestId: string | undefined;
  readonly trace: TraceContext | undefined;
}

const ambient = new AsyncLocalStorage<Ambient>();

/** Runs fn with a request id that every log line written inside it carries; the active trace stays active. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return ambient.run({ requestId, trace: ambient.getStore()?.trace }, fn);
}

export function currentRequestId(): string | undefined {
  return ambient.getStore()?.requestId;
}

/** The trace context that spans started and headers injected here continue. */
export function activeTrace(): TraceContext | undefined {
  return ambient.getStore()?.trace;
}

/**
 * Runs fn with `trace` active, keeping the request id. No switch when it already is: an unsampled span is its
 * parent's context itself, so the work under it runs where it was.
 */
function withTrace<T>(trace: TraceContext, fn: () => T): T {
  const store = ambient.getStore();
  if (store?.trace === trace) return fn();
  return ambient.run({ requestId: store?.requestId, trace }, fn);
}

/** The W3C trace context of a span, as it travels: in HTTP and Kafka headers, and stored with an outbox entry. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** A span in progress; every method does nothing while tracing is off or when the span is not recorded. */
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

// The W3C trace context (https://www.w3.org/TR/trace-context/), as it arrives in headers, as it travels inside a
// process while nothing is recorded, and as the base of every recorded span. Parsed and written here by hand: an
// unsampled operation costs this one small object and the `traceparent` string it came with, no span, no
// OpenTelemetry context, no propagator.
const TRACEPARENT = /^\s?([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;
const INVALID_TRACE_ID = '0'.repeat(32);
const INVALID_SPAN_ID = '0'.repeat(16);
/** A tracestate longer than this is dropped rather than carried (the specification's 512-character floor). */
const MAX_TRACESTATE = 512;

/**
 * A trace context that is not recorded here: one that arrived (`remote`), or the handle of an operation the
 * sampler dropped. Its methods do nothing but carry it: `run` makes it active, `carrier` is its traceparent.
 */
export class TraceContext implements SpanHandle {
  private header: TraceCarrier | undefined;

  constructor(
    readonly traceId: string,
    readonly spanId: string,
    readonly sampled: boolean,
    readonly tracestate: string | undefined,
    readonly isRemote: boolean,
    /** The header it arrived in, passed on as it came. */
    private readonly traceparent?: string,
  ) {}

  get recording(): boolean {
    return false;
  }

  /** OpenTelemetry's SpanContext flags, for its exporters: 1 when sampled. */
  get traceFlags(): number {
    return this.sampled ? 1 : 0;
  }

  setAttributes(_attributes: SpanAttributes): void {}
  fail(_error?: unknown): void {}
  rename(_name: string): void {}
  end(): void {}

  run<T>(fn: () => T): T {
    return withTrace(this, fn);
  }

  carrier(): TraceCarrier {
    if (!this.header) {
      const traceparent = this.traceparent ?? `00-${this.traceId}-${this.spanId}-${this.sampled ? '01' : '00'}`;
      this.header = this.tracestate ? { traceparent, tracestate: this.tracestate } : { traceparent };
    }
    return this.header;
  }
}

/** A stored carrier, or a request's or a message's headers. */
type Carrier = Readonly<{ traceparent?: string | string[] | undefined; tracestate?: string | string[] | undefined }>;

/** The context a carrier or a request's headers hold; undefined when there is none or it does not parse. */
export function extractContext(carrier: Carrier): TraceContext | undefined {
  // As OpenTelemetry's propagator: the first traceparent, every tracestate entry.
  const traceparent = Array.isArray(carrier.traceparent) ? carrier.traceparent[0] : carrier.traceparent;
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match || traceparent === undefined) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest) || traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID)
    return undefined;
  const state = (Array.isArray(carrier.tracestate) ? carrier.tracestate.join(',') : carrier.tracestate)?.trim();
  const tracestate = state && state.length <= MAX_TRACESTATE ? state : undefined;
  const sampled = (Number.parseInt(flags, 16) & 1) === 1;
  // A version-00 header we can pass on as it came; another version is written back as 00.
  return new TraceContext(
    traceId,
    spanId,
    sampled,
    tracestate,
    true,
    version === '00' ? traceparent.trim() : undefined,
  );
}

// Random ids from a pool of random bytes refilled 4 KiB at a time: one call into the system's generator per ~170
// spans or ~340 request ids, not one per id (a call each was 15-17 µs of a gateway request's CPU on the 2-core
// machine, its profile under the abuse bench). The bytes are the same cryptographic ones, only fetched in bulk.
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

/** `bytes` random bytes (at most 4096), encoded. */
export function pooledRandom(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + bytes);
  used += bytes;
  return text;
}

/** A trace id (16 bytes) or a span id (8), in hex, never the all-zero one the specification calls invalid. */
export function randomId(bytes: 16 | 8): string {
  for (;;) {
    const hex = pooledRandom(bytes, 'hex');
    if (hex !== INVALID_TRACE_ID && hex !== INVALID_SPAN_ID) return hex;
  }
}
