// The samplers of the OTEL_TRACES_SAMPLER specification, decided before anything is made for a span: a dropped
// operation gets no span object, only its W3C context (ambient-context.ts). The parent-based ones follow the
// parent's sampled flag, so a payment is kept or dropped whole across the services.
import type { TraceContext } from './ambient-context';

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

/** Whether to record a span of `traceId` under `parent` (none: a new trace). */
export type Sampler = (parent: TraceContext | undefined, traceId: string) => boolean;

/**
 * OpenTelemetry's TraceIdRatioBased decision: the trace id's four 32-bit words XORed, under the ratio's share of
 * 2³²; the same trace id gets the same answer in every process.
 */
function byRatio(ratio: number): (traceId: string) => boolean {
  if (!(ratio > 0)) return () => false;
  if (ratio >= 1) return () => true;
  const upperBound = Math.floor(ratio * 0xffffffff);
  return (traceId) => {
    let accumulation = 0;
    for (let i = 0; i < traceId.length; i += 8)
      accumulation = (accumulation ^ Number.parseInt(traceId.slice(i, i + 8), 16)) >>> 0;
    return accumulation < upperBound;
  };
}

export function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return () => true;
    case 'always_off':
      return () => false;
    case 'traceidratio': {
      const root = byRatio(ratio);
      return (_parent, traceId) => root(traceId);
    }
    case 'parentbased_always_on':
      return (parent) => parent?.sampled ?? true;
    case 'parentbased_always_off':
      return (parent) => parent?.sampled ?? false;
    case 'parentbased_traceidratio': {
      const root = byRatio(ratio);
      return (parent, traceId) => parent?.sampled ?? root(traceId);
    }
  }
}
