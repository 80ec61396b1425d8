import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { telemetryConfigShape, telemetrySettings } from './index';

const parse = (env: Record<string, string>) => z.object(telemetryConfigShape).parse(env);

describe('OTEL_* settings (docs/operations.md, "Traces")', () => {
  it('unset: tracing has no endpoint, so it is off; the sampler keeps every trace that starts here', () => {
    expect(telemetrySettings('orders', parse({}))).toEqual({
      serviceName: 'orders',
      tracesEndpoint: undefined,
      sampler: 'parentbased_traceidratio',
      samplerArg: 1,
      disabled: false,
      resourceAttributes: {},
    });
  });

  it('an empty value is unset, as the OpenTelemetry specification says (manifests write every key out)', () => {
    const settings = telemetrySettings(
      'gateway',
      parse({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: '', OTEL_RESOURCE_ATTRIBUTES: '' }),
    );
    expect(settings.tracesEndpoint).toBeUndefined();
    expect(settings.serviceName).toBe('gateway');
  });

  it('the base endpoint gets /v1/traces; a traces endpoint is taken as it is; resource attributes are decoded', () => {
    const config = parse({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability.svc:4318/',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SDK_DISABLED: 'true',
      OTEL_SERVICE_NAME: 'orders-canary',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=production,team=pay%20ments',
    });
    expect(telemetrySettings('orders', config)).toEqual({
      serviceName: 'orders-canary',
      tracesEndpoint: 'http://otel-collector.observability.svc:4318/v1/traces',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.1,
      disabled: true,
      resourceAttributes: { 'deployment.environment.name': 'production', team: 'pay ments' },
    });
    expect(
      telemetrySettings('orders', parse({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://vendor.example/otlp/traces' }))
        .tracesEndpoint,
    ).toBe('https://vendor.example/otlp/traces');
  });

  it('refuses a sampler the specification does not name and a ratio outside 0..1', () => {
    expect(() => parse({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow();
    expect(() => parse({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow();
  });
});
