import { request } from 'undici';

/**
 * One figure from a service's /metrics (Prometheus text format): the sum of the samples of `name` whose labels
 * include `labels`. 0 when the family is declared but has no such sample yet (prom-client prints a labelled
 * counter only once it has counted something); an error when the service does not declare it at all, so a
 * misspelt name fails the test instead of reading as 0.
 */
export async function metricValue(baseUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return valueInExposition(await metricsText(baseUrl), name, labels, baseUrl);
}

/** Several unlabelled figures of one /metrics answer, read once (as metricValue reads one). */
export async function metricValues<Name extends string>(
  baseUrl: string,
  names: readonly Name[],
): Promise<Record<Name, number>> {
  const text = await metricsText(baseUrl);
  return Object.fromEntries(names.map((name) => [name, valueInExposition(text, name, {}, baseUrl)])) as Record<
    Name,
    number
  >;
}

async function metricsText(baseUrl: string): Promise<string> {
  const response = await request(new URL('/metrics', baseUrl));
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${baseUrl}/metrics answered ${response.statusCode}`);
  return text;
}

export function valueInExposition(
  text: string,
  name: string,
  labels: Record<string, string> = {},
  source = 'the exposition',
): number {
  // A histogram's or a summary's samples (_count, _sum, _bucket) are declared under the metric's own name.
  const declared = name.replace(/_(count|sum|bucket)$/, '');
  if (!new RegExp(`^# TYPE (${name}|${declared}) `, 'm').test(text))
    throw new Error(`${source} declares no metric ${name}`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const present = new Map([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) sum += Number(sample[3]);
  }
  return sum;
}
