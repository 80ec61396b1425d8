import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig, telemetryConfigShape, telemetrySettings } from './index';

const parse = (env: Record<string, string>) => z.object(telemetryConfigShape).parse(env);

describe('OTEL_* settings (docs/operations.md, "Traces")', () => {
  it('unset: tracing has no endpoint, so it is off; the sampler keeps every trace that starts here', () => {
    expect(telemetrySettings('orders', parse({}))).toEqual({
      serviceName: 'orders',
      exporter: 'otlp',
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
      exporter: 'otlp',
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

  describe('OTEL_TRACES_EXPORTER: OTLP to a collector by default, Zipkin directly for the local stack', () => {
    const zipkin = 'http://127.0.0.1:9411/api/v2/spans';
    const both = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_ZIPKIN_ENDPOINT: zipkin };

    it('unset or empty: otlp, to the OTLP endpoint, even when a Zipkin endpoint is also set', () => {
      for (const value of [{}, { OTEL_TRACES_EXPORTER: '' }, { OTEL_TRACES_EXPORTER: 'otlp' }] as Record<
        string,
        string
      >[])
        expect(telemetrySettings('orders', parse({ ...both, ...value }))).toMatchObject({
          exporter: 'otlp',
          tracesEndpoint: 'http://collector:4318/v1/traces',
        });
    });

    it('zipkin: to OTEL_EXPORTER_ZIPKIN_ENDPOINT as it is, never to the OTLP endpoint', () => {
      expect(telemetrySettings('orders', parse({ ...both, OTEL_TRACES_EXPORTER: 'zipkin' }))).toMatchObject({
        exporter: 'zipkin',
        tracesEndpoint: zipkin,
      });
    });

    it('none: no endpoint, so tracing is off whatever else is set', () => {
      expect(telemetrySettings('orders', parse({ ...both, OTEL_TRACES_EXPORTER: 'none' }))).toMatchObject({
        exporter: 'none',
        tracesEndpoint: undefined,
      });
    });

    it('zipkin without its endpoint is a configuration error naming the missing variable', () => {
      const config = parse({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
      expect(() => telemetrySettings('orders', config)).toThrow(ConfigError);
      expect(() => telemetrySettings('orders', config)).toThrow(/OTEL_EXPORTER_ZIPKIN_ENDPOINT: required/);
      // Switched off, nothing is sent anywhere: no endpoint is needed.
      expect(() =>
        telemetrySettings('orders', parse({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_SDK_DISABLED: 'true' })),
      ).not.toThrow();
    });

    it('an exporter name the project does not ship (or a list) is refused at start, naming the choices', () => {
      const schema = z.object(telemetryConfigShape);
      for (const value of ['jaeger', 'console', 'otlp,zipkin', 'Zipkin'])
        expect(() => loadConfig('orders', schema, { OTEL_TRACES_EXPORTER: value })).toThrow(
          `OTEL_TRACES_EXPORTER=${JSON.stringify(value)}: unknown traces exporter ${JSON.stringify(value)}: one of otlp, zipkin, none`,
        );
    });
  });
});
