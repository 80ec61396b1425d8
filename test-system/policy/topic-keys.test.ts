import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOPICS, TOPIC_KEYS } from '@checkout/contracts';
import { ROOT } from './docs-check';

// docs/operations.md's topic table and the code name one plan: each topic's key and the setting sizing it are
// TOPIC_KEYS' (libs/contracts/src/topics.ts), and the production partition count the table states is what the
// production overlay gives the create-topics job (base topics.env, then the overlay's topics-config literals).

const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Topics and partitions'));
const rows = [
  ...section
    .slice(0, section.indexOf('\n\n', section.indexOf('| topic |')))
    .matchAll(/^\| `([^`]+)` \| `(\w+)` \|.*\| (\d+) \(`(\w+)`\) \|$/gm),
];

function productionTopicsConfig(): Map<string, number> {
  const settings = new Map<string, number>();
  for (const m of readFileSync(join(ROOT, 'deploy/k8s/base/jobs/topics.env'), 'utf8').matchAll(/^(\w+)=(\d+)$/gm))
    settings.set(m[1] as string, Number(m[2]));
  const overlay = readFileSync(join(ROOT, 'deploy/k8s/overlays/production/kustomization.yaml'), 'utf8');
  const block = overlay.slice(overlay.indexOf('- name: topics-config'), overlay.indexOf('- name: gateway-config'));
  for (const m of block.matchAll(/- (\w+)=(\d+)/g)) settings.set(m[1] as string, Number(m[2]));
  return settings;
}

describe("docs/operations.md's topic table is the code's", () => {
  it('lists every topic once, with its TOPIC_KEYS key and partition setting', () => {
    expect(rows.map((r) => r[1]).sort()).toEqual([...ALL_TOPICS].sort());
    for (const [, topic, key, , setting] of rows) {
      expect(key, topic).toBe(TOPIC_KEYS[topic as string]?.key);
      expect(setting, topic).toBe(TOPIC_KEYS[topic as string]?.partitions);
    }
  });

  it("states the production overlay's partition count of each topic", () => {
    const settings = productionTopicsConfig();
    for (const [, topic, , partitions, setting] of rows)
      expect(Number(partitions), topic).toBe(settings.get(setting as string));
  });
});
