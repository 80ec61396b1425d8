import { describe, expect, it } from 'vitest';
import { interleaving, tableRows, tableTitles, targetLines } from './compare';

const OUTPUT = `orders benchmark: concurrency 32

CPU per request of the serving Node processes (engines excluded), ms:
target            POST  GET
----------------  ----  ----
gateway+orders    9.99  3.63
a create costs 9.9× the CPU of a bare insert

targets (docs/engineering.md, "Performance targets"; same run, same engines):
target                                       figure                      before
-------------------------------------------  -----------------------  -  --------------
POST /v0/orders ≥ 0.5× bare Koa + driver     0.30× (31 vs 102 req/s)  ✗  before the rework
RSS of gateway under load ≤ 150 MiB          150 MiB (peak)           ✓
`;

describe('tableRows', () => {
  it('keys each row of a matching table by the title and its first cell', () => {
    const rows = tableRows(OUTPUT, /^targets/);
    expect([...rows.entries()]).toEqual([
      ['targets | POST /v0/orders ≥ 0.5× bare Koa + driver', '0.30× (31 vs 102 req/s)  ✗  before the rework'],
      ['targets | RSS of gateway under load ≤ 150 MiB', '150 MiB (peak)  ✓'],
    ]);
  });

  it('leaves out the tables whose title does not match', () => {
    expect([...tableRows(OUTPUT, /^CPU per/).keys()]).toEqual([
      'CPU per request of the serving Node processes | gateway+orders',
    ]);
  });
});

describe('tableTitles', () => {
  it('names every table a bench printed, as --tables matches them', () => {
    expect(tableTitles(OUTPUT)).toEqual(['CPU per request of the serving Node processes', 'targets']);
  });
});

describe('tableRows of the webhooks bench (| between cells, an engines line above the header)', () => {
  it('reads its rows as it reads the others', () => {
    const output = [
      'webhook dispatcher benchmark (2 receivers on 127.0.0.1, timeout 5000 ms; shared 2-core machine: noisy)',
      'engines: Apache Kafka 4.3.1; mongo-java-server 1.47.0',
      '  figure                    | now                | target   | before',
      '  --------------------------|--------------------|----------|-------',
      '  burst ratio to raw undici | 0.31× (310 / 1000) | ✗ ≥ 0.5× | 0.27×',
      '  healthy half, n=498       | p99 64 ms           | ✓        | —',
      '',
    ].join('\n');
    expect([...tableRows(output, /^webhook dispatcher benchmark/).entries()]).toEqual([
      ['webhook dispatcher benchmark | burst ratio to raw undici', '0.31× (310 / 1000)  ✗ ≥ 0.5×  0.27×'],
      ['webhook dispatcher benchmark | healthy half, n', 'p99 64 ms  ✓  —'],
    ]);
  });
});

describe('interleaving', () => {
  it('runs each version as often first as second', () => {
    expect(interleaving(2)).toEqual(['base', 'head', 'head', 'base']);
    expect(interleaving(3)).toEqual(['base', 'head', 'head', 'base', 'base', 'head']);
  });
});

describe('targetLines', () => {
  it('keys each target printed as a line by what precedes its first colon, its mark before the figure', () => {
    const output = [
      'targets, this run:',
      '  ✗ pay → completed on Kafka p50 ≤ 20 ms: 68.00 ms',
      '  ✓ RSS of orders under the payment load ≤ 150 MiB: 143 MiB',
      '      at its peak: 143 MiB = V8 heap 82 (42 used)',
    ].join('\n');
    expect([...targetLines(output).entries()]).toEqual([
      ['targets | pay → completed on Kafka p50 ≤ 20 ms', '✗ 68.00 ms'],
      ['targets | RSS of orders under the payment load ≤ 150 MiB', '✓ 143 MiB'],
    ]);
  });
});
