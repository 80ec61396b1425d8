import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// The dispatcher's own metrics; the registry is handed to createBaseApp, so they are served on /metrics.
export interface DispatcherMetrics {
  registry: Registry;
  deliveries: Counter<'outcome'>;
  attempts: Counter<'outcome' | 'attempt' | 'status_class'>;
  attemptDuration: Histogram<'outcome'>;
  firstAttemptDelay: Histogram;
  inFlight: Gauge;
  queued: Gauge;
  deferred: Counter<'reason'>;
  recoverySweeps: Counter<'lease'>;
  endpointsDisabled: Counter<'reason'>;
  tenantsNearBudget: Gauge<'mode' | 'budget'>;
}

export function createDispatcherMetrics(): DispatcherMetrics {
  const registry = new Registry();
  return {
    registry,
    deliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Deliveries that reached a final outcome (succeeded, failed) or were created without one being possible (no_callback_url)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    attempts: new Counter({
      name: 'webhook_attempts_total',
      help:
        'Webhook attempts by outcome (success, http_error, redirect, timeout, refused, network, invalid_url, ' +
        "signing_failed, endpoint_unavailable), attempt number (1-5) and the answer's status class (2xx, 3xx, " +
        '4xx, 5xx, none)',
      labelNames: ['outcome', 'attempt', 'status_class'],
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of webhook attempts by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    // The first-attempt SLO's indicator (docs/operations.md, "SLOs"): from the delivery's record to its first POST.
    firstAttemptDelay: new Histogram({
      name: 'webhook_first_attempt_delay_seconds',
      help: "Time from an event's delivery being recorded to its first attempt starting",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'webhook_attempts_in_flight',
      help: 'Webhook attempts currently in flight in this process',
      registers: [registry],
    }),
    queued: new Gauge({
      name: 'webhook_attempts_queued',
      help: 'Webhook attempts waiting in memory for a per-host or global slot',
      registers: [registry],
    }),
    deferred: new Counter({
      name: 'webhook_attempts_deferred_total',
      help:
        "Attempts not made and put off, without using up one of the delivery's attempts, by reason " +
        "(signing_secret_unavailable: the gateway could not give the organization's signing secret, D35)",
      labelNames: ['reason'],
      registers: [registry],
    }),
    // The recovery sweep is a singleton (a lease per round): each replica's rounds show who swept and who deferred.
    recoverySweeps: new Counter({
      name: 'webhook_recovery_sweeps_total',
      help:
        'Recovery sweep rounds of this process by lease: taken (this process swept) or held_elsewhere (another ' +
        'process held the lease: sweeping, or dead before its lease expired)',
      labelNames: ['lease'],
      registers: [registry],
    }),
    endpointsDisabled: new Counter({
      name: 'webhook_endpoints_disabled_total',
      help: 'Webhook endpoints this process disabled, by reason (failing: every attempt failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_MS, D50)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    // Counted by the sweepers every BUDGET_GAUGE_INTERVAL_MS; no organization is a label, so the series stay six.
    tenantsNearBudget: new Gauge({
      name: 'webhook_tenants_near_budget',
      help:
        'Organizations whose use of a daily budget (events, deliveries, bytes) in a mode today has reached 80 % of ' +
        'its limit (BUDGET_<MODE>_<BUDGET>_PER_DAY); past 100 % the gateway refuses their writes with 429 QUOTA_EXCEEDED',
      labelNames: ['mode', 'budget'],
      registers: [registry],
    }),
  };
}
