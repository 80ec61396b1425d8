// What travels with a request through every await of a process: its request id (log lines) and, with tracing on,
// its trace context (spans, propagation). Both in ONE AsyncLocalStorage: Node copies each storage's value onto
// every promise and callback a request creates, so a second storage beside the logger's would be paid again on
// every async step of the process while tracing is on (docs/operations.md, "Traces").
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from './trace-context';

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
export function withTrace<T>(trace: TraceContext, fn: () => T): T {
  const store = ambient.getStore();
  if (store?.trace === trace) return fn();
  return ambient.run({ requestId: store?.requestId, trace }, fn);
}
