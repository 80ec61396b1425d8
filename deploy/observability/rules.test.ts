// The alert rules, tested by Prometheus' own tool: `promtool check rules` (syntax, every expression parses) and
// `promtool test rules` on rules.test.yaml (synthetic series that must fire each alert and series that must not).
// promtool comes with Debian's prometheus package, installed by scripts/ensure-prometheus.sh when missing. Also:
// every alert carries a runbook_url to docs/runbooks/<alert>.md that exists, and every alert name has a case that
// fires and a case that does not.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'deploy', 'observability');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = parseYaml(readFileSync(join(DIR, 'prometheus-rules.yaml'), 'utf8')) as {
  groups: { name: string; rules: Rule[] }[];
};
const cases = parseYaml(readFileSync(join(DIR, 'rules.test.yaml'), 'utf8')) as {
  tests: { name: string; alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
};
const alerts = rules.groups.flatMap((group) => group.rules.filter((rule) => rule.alert !== undefined));
const alertNames = [...new Set(alerts.map((rule) => rule.alert!))];

let promtool = '';

function run(args: string[]): { code: number; output: string } {
  const result = spawnSync(promtool, args, { cwd: DIR, encoding: 'utf8', timeout: 400_000 });
  return { code: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  const ensure = spawnSync('bash', [join(ROOT, 'scripts', 'ensure-prometheus.sh')], { encoding: 'utf8' });
  const located = /promtool: (?:present|installed) at (\S+)/.exec(ensure.stdout);
  if (ensure.status !== 0 || !located)
    throw new Error(`scripts/ensure-prometheus.sh failed:\n${ensure.stdout}${ensure.stderr}`);
  promtool = located[1]!;
}, 900_000);

describe('Prometheus rules (deploy/observability/prometheus-rules.yaml)', () => {
  it('promtool checks them', () => {
    const { code, output } = run(['check', 'rules', 'prometheus-rules.yaml']);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
    expect(code).toBe(0);
    // A child process: on two cores busy with the checks beside the unit tier it has taken over 5 s.
  }, 400_000);

  it('every alert fires on its synthetic series and stays quiet on the others (promtool test rules)', () => {
    const { code, output } = run(['test', 'rules', 'rules.test.yaml']);
    expect(output, output).toContain('SUCCESS');
    expect(code).toBe(0);
  }, 400_000);

  it('every alert name has a case that fires it and a case in which it must not fire', () => {
    const fires = new Set<string>();
    const quiet = new Set<string>();
    for (const test of cases.tests)
      for (const check of test.alert_rule_test) (check.exp_alerts.length > 0 ? fires : quiet).add(check.alertname);
    expect(alertNames.length).toBeGreaterThanOrEqual(12);
    expect(alertNames.filter((name) => !fires.has(name))).toEqual([]);
    expect(alertNames.filter((name) => !quiet.has(name))).toEqual([]);
  });

  it('every alert has a severity and a runbook_url to docs/runbooks/<alert>.md, which exists', () => {
    for (const rule of alerts) {
      expect(['page', 'ticket', 'info'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.runbook_url, rule.alert).toBe(`docs/runbooks/${rule.alert}.md`);
      expect(existsSync(join(ROOT, rule.annotations!.runbook_url!)), rule.annotations!.runbook_url).toBe(true);
    }
  });

  it('each SLO pages on a fast burn and files a ticket on a slow one, over two windows each (SRE Workbook)', () => {
    const burns = alerts.filter((rule) => rule.labels?.slo !== undefined);
    const slos = new Set(burns.map((rule) => rule.labels!.slo));
    expect([...slos].sort()).toEqual([
      'api-availability',
      'api-latency',
      'consumer-lag',
      'first-webhook-attempt',
      'payment-event',
    ]);
    for (const slo of slos) {
      const page = burns.find((rule) => rule.labels!.slo === slo && rule.labels!.severity === 'page')!;
      const ticket = burns.find((rule) => rule.labels!.slo === slo && rule.labels!.severity === 'ticket')!;
      for (const window of ['ratio_rate1h', 'ratio_rate5m', 'ratio_rate6h', 'ratio_rate30m'])
        expect(page.expr).toContain(window);
      for (const window of ['ratio_rate1d', 'ratio_rate2h', 'ratio_rate3d', 'ratio_rate6h'])
        expect(ticket.expr).toContain(window);
      expect(page.expr).toContain('14.4 *');
      expect(ticket.expr).toContain('3 *');
    }
  });
});
