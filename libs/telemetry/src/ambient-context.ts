// What travels with a request through every await of a process: its request id (log lines) and, with tracing on,
// its trace context (spans, propagation). Both in ONE AsyncLocalStorage: Node copies each storage's value onto
// every promise and callback a request creates, so a second storage (OpenTelemetry's own context manager beside
// the logger's) is paid again on every async step of the process while tracing is on: about 100 ns per awaited
// promise on Node 20 here, where a span costs about 15 µs once, its export included (docs/operations.md, "Traces").
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

interface Ambient {
  readonly requestId: string | undefined;
  readonly trace: Context;
}

const ambient = new AsyncLocalStorage<Ambient>();

/** Runs fn with a request id that every log line written inside it carries; the active trace stays active. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return ambient.run({ requestId, trace: ambient.getStore()?.trace ?? ROOT_CONTEXT }, fn);
}

export function currentRequestId(): string | undefined {
  return ambient.getStore()?.requestId;
}

/**
 * OpenTelemetry's context manager over the same storage: switching the active span keeps the request id, and
 * setting the request id keeps the active span. `bind` wraps functions only (as nothing here binds an event
 * emitter; OpenTelemetry's own manager patches their listeners).
 */
export class AmbientContextManager implements ContextManager {
  active(): Context {
    return ambient.getStore()?.trace ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const run = thisArg == null ? fn : (fn.bind(thisArg) as F);
    return ambient.run({ requestId: ambient.getStore()?.requestId, trace: context }, run, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const original = target as (...args: unknown[]) => unknown;
    return function bound(this: unknown, ...args: unknown[]) {
      return ambient.run({ requestId: ambient.getStore()?.requestId, trace: context }, () =>
        original.apply(this, args),
      );
    } as T;
  }

  enable(): this {
    return this;
  }

  /** Nothing to release: the storage also carries request ids, which outlive tracing (a test's shutdown). */
  disable(): this {
    return this;
  }
}
