import { Counter, type Registry } from 'prom-client';

// The gateway's own metrics, next to the HTTP and process ones on /metrics.
export interface GatewayMetrics {
  rateLimited: Counter;
  clientRateLimited: Counter;
  quotaRefused: Counter<'budget' | 'mode'>;
  /** A write not checked against its budgets: the dispatcher did not answer (fail open). */
  quotaUnchecked: Counter;
}

export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  return {
    rateLimited: new Counter({
      name: 'gateway_rate_limit_rejections_total',
      help: 'Requests refused with 429 RATE_LIMITED because their API key was over its per-second limit',
      registers: [registry],
    }),
    clientRateLimited: new Counter({
      name: 'gateway_client_rate_limit_rejections_total',
      help: 'Requests refused with 429 RATE_LIMITED before authentication because their client address was over its limit',
      registers: [registry],
    }),
    // No organization is a label: which one is in the log line of the refusal's request.
    quotaRefused: new Counter({
      name: 'gateway_quota_refusals_total',
      help:
        'Writes refused with 429 QUOTA_EXCEEDED because their organization and mode had used up a daily budget ' +
        '(events, deliveries, bytes)',
      labelNames: ['budget', 'mode'],
      registers: [registry],
    }),
    quotaUnchecked: new Counter({
      name: 'gateway_quota_unchecked_total',
      help:
        "Writes that record events let through without their budgets checked: the dispatcher's usage could not " +
        'be read in time (fail open)',
      registers: [registry],
    }),
  };
}
