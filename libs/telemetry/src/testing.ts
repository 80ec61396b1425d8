// Spans collected in memory, for tests of what the libraries put in a trace (no backend, no network).
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry, type Telemetry } from './index';

export interface FinishedSpan {
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status: 'unset' | 'ok' | 'error';
}

const KIND_NAMES = ['internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS_NAMES = ['unset', 'ok', 'error'] as const;

/** Registers tracing with an in-memory exporter (every span sampled); `spans()` reads what has ended. */
export function collectSpans(serviceName = 'test'): Telemetry & { spans(): FinishedSpan[]; reset(): void } {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry(
    { serviceName, exporter: 'otlp', sampler: 'always_on', samplerArg: 1, disabled: false },
    { exporter },
  );
  return {
    enabled: telemetry.enabled,
    flush: () => telemetry.flush(),
    shutdown: () => telemetry.shutdown(),
    reset: () => exporter.reset(),
    spans: () =>
      exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        kind: KIND_NAMES[span.kind] ?? 'internal',
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        attributes: { ...span.attributes },
        status: STATUS_NAMES[span.status.code] ?? 'unset',
      })),
  };
}
