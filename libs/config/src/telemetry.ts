import { z } from 'zod';
import { SAMPLERS, TRACES_EXPORTERS, type TelemetryConfig } from '@checkout/telemetry';
import { env } from './env';
import { ConfigError } from './load';

/**
 * OpenTelemetry's standard variables (the SDK environment and the OTLP and Zipkin exporter specifications), for
 * every service. OTEL_TRACES_EXPORTER chooses the exporter: `otlp` (default; a cluster's collector), `zipkin`
 * (straight to a Zipkin: the local stack), `none`. Tracing is on only when the chosen exporter's endpoint is set:
 * unset, nothing is exported and no span is made (a deliberate difference from the specification's default of
 * localhost:4318, so that a deployment without a collector pays nothing). docs/operations.md, "Traces".
 */
/** OpenTelemetry's rule for its variables: an empty value is unset (a manifest can write each one out). */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const telemetryConfigShape = {
  OTEL_SDK_DISABLED: env.boolean(false).describe('true: no tracing at all, whatever else is set'),
  OTEL_SERVICE_NAME: unsetWhenEmpty(z.string().min(1)).describe(
    "The service's name in traces (`service.name`); defaults to the service (gateway, orders…)",
  ),
  OTEL_TRACES_EXPORTER: z
    .preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .enum(TRACES_EXPORTERS, {
          error: (issue) =>
            `unknown traces exporter ${JSON.stringify(issue.input)}: one of ${TRACES_EXPORTERS.join(', ')} (one, not a list)`,
        })
        .default('otlp'),
    )
    .describe(
      'Where spans go: otlp (default) to OTEL_EXPORTER_OTLP_ENDPOINT, zipkin to OTEL_EXPORTER_ZIPKIN_ENDPOINT, none (tracing off)',
    ),
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    "Zipkin's v2 span API (http://127.0.0.1:9411/api/v2/spans); spans go there as JSON when OTEL_TRACES_EXPORTER=zipkin, which requires it",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    'Base URL of an OTLP/HTTP receiver (an OpenTelemetry Collector: ' +
      'http://otel-collector.observability:4318); traces go to <url>/v1/traces as protobuf. ' +
      'Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is off',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetWhenEmpty(env.url()).describe(
    'Full URL traces are sent to, when it is not OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces',
  ),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS)
    .default('parentbased_traceidratio')
    .describe(
      'Which traces are kept: parentbased_traceidratio keeps OTEL_TRACES_SAMPLER_ARG of the ' +
        "traces that start here and follows the caller's decision for the others, so a payment is " +
        'kept or dropped whole across the services',
    ),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe('The ratio of the *traceidratio samplers, 0–1 (1: every trace)'),
  OTEL_RESOURCE_ATTRIBUTES: unsetWhenEmpty(z.string()).describe(
    'Extra resource attributes, key=value,key=value (e.g. deployment.environment.name=production)',
  ),
};

/** What libs/telemetry's startTelemetry takes, from the OTEL_* settings of a service's config. */
export function telemetrySettings(
  service: string,
  config: {
    OTEL_SDK_DISABLED: boolean;
    OTEL_SERVICE_NAME?: string | undefined;
    OTEL_TRACES_EXPORTER?: TelemetryConfig['exporter'];
    OTEL_EXPORTER_ZIPKIN_ENDPOINT?: string | undefined;
    OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
    OTEL_TRACES_SAMPLER: TelemetryConfig['sampler'];
    OTEL_TRACES_SAMPLER_ARG: number;
    OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
  },
): TelemetryConfig {
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const resourceAttributes: Record<string, string> = {};
  for (const pair of (config.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) resourceAttributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  const exporter = config.OTEL_TRACES_EXPORTER ?? 'otlp';
  // Zipkin chosen by name but given nowhere to send: a mistake to report at start, not tracing silently off.
  if (exporter === 'zipkin' && config.OTEL_EXPORTER_ZIPKIN_ENDPOINT === undefined && !config.OTEL_SDK_DISABLED)
    throw new ConfigError(service, [
      "OTEL_EXPORTER_ZIPKIN_ENDPOINT: required with OTEL_TRACES_EXPORTER=zipkin (Zipkin's span API, http://host:9411/api/v2/spans)",
    ]);
  const otlpEndpoint =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base}/v1/traces`);
  return {
    serviceName: config.OTEL_SERVICE_NAME ?? service,
    exporter,
    tracesEndpoint: { otlp: otlpEndpoint, zipkin: config.OTEL_EXPORTER_ZIPKIN_ENDPOINT, none: undefined }[exporter],
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerArg: config.OTEL_TRACES_SAMPLER_ARG,
    disabled: config.OTEL_SDK_DISABLED,
    resourceAttributes,
  };
}
