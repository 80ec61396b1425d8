// `npm run bench -- compare <bench> --base=<git revision> [--runs=N] [--tables=<regex>] [bench options]`: the same
// bench on the revision given and on this checkout, interleaved base, head, head, base, … (N of each, 2 by
// default), so both versions see the same machine; then every row of the tables whose title matches --tables
// (the targets table by default, and the webhooks bench's) and every target printed as a line of its own
// (`✓ …: …`), with each run's figures side by side. The base revision is unpacked once into
// ~/.cache/checkout-bench/<commit> and installed there with `npm ci`, reused by later comparisons.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

export interface CompareOptions {
  readonly bench: string;
  readonly base: string;
  readonly runs: number;
  readonly tables: RegExp;
  readonly benchArgs: readonly string[];
}

/** The base revision's tree, installed: unpacked and `npm ci`-ed once per commit, reused afterwards. */
function baseCheckout(revision: string): { dir: string; commit: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], { cwd: repo })
    .toString()
    .trim();
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const dir = join(cache, 'checkout-bench', commit);
  if (existsSync(join(dir, '.installed'))) return { dir, commit };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', commit], { cwd: repo, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  process.stderr.write(`[compare] npm ci in ${dir}\n`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('touch', [join(dir, '.installed')]);
  return { dir, commit };
}

/** One bench run in `dir`, its standard output (progress goes to this process's standard error). */
function runBench(dir: string, args: readonly string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('npm', ['run', '-s', 'bench', '--', ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) =>
      code === 0 ? done(out) : fail(new Error(`bench in ${dir} exited with ${String(code)}`)),
    );
  });
}

/** Cells are two or more spaces apart, or ' | ' apart (the webhooks bench's table). */
const CELLS = / +\| +| {2,}/;

/**
 * The rows of every table in a bench's output whose title matches: a title line, a header line and a line of dashes
 * (`---  ---` or `---|---`), then rows until a blank line. Between the title and the header there may be an
 * `engines: …` line (the webhooks bench prints one there). Each row is keyed by its table's title and its first cell.
 */
export function tableRows(output: string, tables: RegExp): Map<string, string> {
  const rows = new Map<string, string>();
  const lines = output.split('\n').map((line) => line.trim());
  for (let dashes = 2; dashes < lines.length; dashes += 1) {
    if (!/^-+(( +|-\|-)-+)*$/.test(lines[dashes]!)) continue;
    const above = lines[dashes - 2]!;
    const title = above.startsWith('engines:') ? (lines[dashes - 3] ?? '') : above;
    if (!tables.test(title)) continue;
    const shortTitle = title.split(/[(:]/)[0]!.trim();
    // A row has two cells or more; a sentence after the table (one cell) ends it, as a blank line does.
    for (let j = dashes + 1; j < lines.length && lines[j]!.split(CELLS).length > 1; j += 1) {
      const [first = '', ...rest] = lines[j]!.split(CELLS);
      // A sample's size in a row's name (n=499) differs from run to run; the row is the same.
      rows.set(`${shortTitle} | ${first.replace(/\bn=\d+/g, 'n')}`, rest.join('  ').slice(0, 140));
    }
  }
  return rows;
}

/** The short titles of every table in a bench's output: what `--tables` can match. */
export function tableTitles(output: string): string[] {
  return [...new Set([...tableRows(output, /(?:)/).keys()].map((key) => key.split(' | ')[0]!))];
}

/**
 * The targets a bench prints as lines rather than a table (`  ✗ pay → completed on Kafka p50 ≤ 20 ms: 68.00 ms`, the
 * sessions and tracing benches), keyed by the target, what precedes the first `: `; the mark leads the figure.
 */
export function targetLines(output: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of output.split('\n')) {
    const target = /^\s*([✓✗]) (.+?): (.+)$/.exec(line);
    if (target) rows.set(`targets | ${target[2]!}`, `${target[1]!} ${target[3]!}`.slice(0, 140));
  }
  return rows;
}

/** base, head, head, base, …: each version runs as often first as second. */
export function interleaving(runs: number): ('base' | 'head')[] {
  const order: ('base' | 'head')[] = [];
  for (let i = 0; i < runs; i += 1)
    order.push(...(i % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const)));
  return order;
}

export async function compare(options: CompareOptions): Promise<void> {
  const base = baseCheckout(options.base);
  const label = { base: `base ${base.commit.slice(0, 7)}`, head: 'head' };
  const results: { side: 'base' | 'head'; rows: Map<string, string>; titles: string[] }[] = [];
  for (const side of interleaving(options.runs)) {
    process.stderr.write(
      `[compare] ${label[side]}: npm run bench -- ${[options.bench, ...options.benchArgs].join(' ')}\n`,
    );
    const output = await runBench(side === 'base' ? base.dir : repo, [options.bench, ...options.benchArgs]);
    results.push({
      side,
      rows: new Map([...tableRows(output, options.tables), ...targetLines(output)]),
      titles: tableTitles(output),
    });
  }
  const keys = [...new Set(results.flatMap((r) => [...r.rows.keys()]))];
  console.log(`${options.bench}: ${label.base} against ${label.head}, ${options.runs} runs each, interleaved`);
  if (keys.length === 0) {
    const titles = [...new Set(results.flatMap((r) => r.titles))];
    console.log(
      `\nno table's title matched --tables=${options.tables.source} and the bench printed no target line; ` +
        `its tables: ${titles.length === 0 ? '(none)' : titles.join('; ')}`,
    );
  }
  for (const key of keys) {
    console.log(`\n${key}`);
    for (const side of ['base', 'head'] as const) {
      results
        .filter((r) => r.side === side)
        .forEach((r, i) => console.log(`  ${label[side]} #${i + 1}: ${r.rows.get(key) ?? '(no row)'}`));
    }
  }
}
