import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { startStack, type InProcessStack } from './support/stack';

// The dashboard and the alert rules that ship in deploy/observability name only metrics that the
// services really serve. A renamed metric would otherwise leave an alert that can never fire.

const dashboard = JSON.parse(
  readFileSync(new URL('../../deploy/observability/grafana-dashboard.json', import.meta.url), 'utf8'),
) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = parseYaml(
  readFileSync(new URL('../../deploy/observability/prometheus-rules.yaml', import.meta.url), 'utf8'),
) as {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
};
/** Series the rules record themselves (the SLOs' error ratios): read by alerts and panels, served by no service. */
const recorded = new Set(rules.groups.flatMap((group) => group.rules.flatMap((rule) => rule.record ?? [])));

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: identifiers that are not functions, labels or keywords. */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const next = bare.slice((match.index ?? 0) + match[0].length).trimStart()[0];
    if (next === '(' || PROMQL_KEYWORDS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return names;
}

const dashboardNames = new Set(
  dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNamesIn(target.expr))),
);
const alertNames = new Set(rules.groups.flatMap((group) => group.rules.flatMap((rule) => metricNamesIn(rule.expr))));
const isServed = (name: string) => recorded.has(name) || served.has(familyOf(name));

let stack: InProcessStack;
/** Metric family → type, from `# TYPE` lines of every service's /metrics. */
const served = new Map<string, string>();
const scraped: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack();
  // The gateway serves /metrics on its operators' listener (ADMIN_PORT).
  const ports = {
    gateway: stack.env.gateway.ADMIN_PORT,
    orders: stack.env.orders.PORT,
    sessions: stack.env.sessions.PORT,
    dispatcher: stack.env.dispatcher.PORT,
  };
  for (const [service, port] of Object.entries(ports)) {
    const response = await request(`http://127.0.0.1:${port}/metrics`);
    expect(response.statusCode).toBe(200);
    scraped[service] = await response.body.text();
    for (const [, name, type] of scraped[service].matchAll(/^# TYPE (\S+) (\S+)$/gm)) served.set(name!, type!);
  }
});

afterAll(async () => {
  await stack?.stop();
});

/** A histogram is queried through its _bucket, _sum and _count series. */
function familyOf(name: string): string {
  const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
  return histogram && served.get(histogram[1]!) === 'histogram' ? histogram[1]! : name;
}

describe('Dashboard and alert rules', () => {
  it('the PromQL reader finds metric names and skips functions, labels and ranges', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (le, service) (rate(http_request_duration_seconds_bucket{route!="unmatched"}[5m]))) > 1',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total{x=~"5.."}[5m])) / sum(rate(b_total[5m])) and c')).toEqual([
      'a_total',
      'b_total',
      'c',
    ]);
  });

  it('every metric the Grafana dashboard plots is served by a service', () => {
    expect(dashboardNames.size).toBeGreaterThanOrEqual(10);
    expect([...dashboardNames].filter((name) => !isServed(name))).toEqual([]);
  });

  it('every metric an alert rule reads is served by a service', () => {
    expect(alertNames.size).toBeGreaterThanOrEqual(8);
    expect([...alertNames].filter((name) => !isServed(name))).toEqual([]);
    // Every recorded series an alert or a panel reads is recorded from served metrics only (checked above, since
    // the recording rules' expressions are among the rules read).
    expect(recorded.size).toBeGreaterThanOrEqual(5);
  });

  it('the on-call metrics of docs/operations.md exist, named by Prometheus conventions', () => {
    for (const name of [
      'outbox_oldest_unpublished_age_seconds',
      'outbox_unpublished_events',
      'outbox_publish_failures_total',
      'kafka_consumer_group_lag',
      'kafka_consumer_restarts_total',
      'kafka_consumer_message_age_seconds',
      'kafka_topic_messages',
      'webhook_attempts_total',
      'webhook_deliveries_total',
      'http_request_duration_seconds',
      'gateway_rate_limit_rejections_total',
      // The SLOs' indicators (docs/operations.md, "SLOs").
      'outbox_publish_delay_seconds',
      'webhook_first_attempt_delay_seconds',
    ]) {
      expect(served.has(name), name).toBe(true);
    }
    const counters = [...served].filter(([, type]) => type === 'counter').map(([name]) => name);
    expect(counters.filter((name) => !name.endsWith('_total'))).toEqual([]);
  });

  it('the gauges computed at scrape time carry values from the real broker and database', () => {
    const prefix = stack.env.dispatcher.TOPIC_PREFIX;
    expect(scraped.dispatcher).toMatch(
      new RegExp(`^kafka_consumer_group_lag\\{[^}]*group="${prefix}[^"]*"[^}]*\\} \\d+$`, 'm'),
    );
    expect(scraped.dispatcher).toMatch(/^kafka_topic_messages\{[^}]*topic="[^"]*webhooks\.dead-letter"[^}]*\} \d+$/m);
    expect(scraped.sessions).toMatch(/^kafka_consumer_group_lag\{[^}]*\} \d+$/m);
    for (const service of ['orders', 'sessions']) {
      expect(scraped[service]).toMatch(/^outbox_unpublished_events\{[^}]*\} \d+$/m);
      expect(scraped[service]).toMatch(/^outbox_oldest_unpublished_age_seconds\{[^}]*\} [\d.e+-]+$/m);
    }
  });
});
