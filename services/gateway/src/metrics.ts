import { Counter, type Registry } from 'prom-client';

// The gateway's own metrics, next to the HTTP and process ones on /metrics.
export interface GatewayMetrics {
  rateLimited: Counter;
  clientRateLimited: Counter;
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
  };
}
