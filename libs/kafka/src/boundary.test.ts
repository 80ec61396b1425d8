import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// libs/kafka owns kafkajs, so replacing the client library is this lib's change alone (README.md). That no other
// package imports kafkajs is a lint rule (eslint.config.js); this checks that none reaches it through the lib.

describe('libs/kafka owns kafkajs', () => {
  it('the public index exports neither kafkajs nor the module that binds our client to it', () => {
    const index = readFileSync(new URL('./index.ts', import.meta.url), 'utf8');
    const sources = [...index.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(5);
    expect(sources.filter((source) => source === 'kafkajs' || source === './kafkajs')).toEqual([]);
  });
});
