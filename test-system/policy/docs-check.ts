// The docs check (unit tier of `npm test`, test-system/policy/docs-check.test.ts): what README.md, docs/**/*.md and the
// packages' README files name must exist in this checkout, so that a newcomer can trust them. Each finding is
// `file:line: what`. It reads the tracked files once and matches words, so it runs in well under a second.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const SELF = readFileSync(import.meta.filename, 'utf8').split('\n');

/**
 * Backticked words that look like identifiers of this repository but name something else. Each group says why it
 * cannot be found in the code; anything that appears as a word in a tracked non-Markdown file needs no entry.
 */
const NOT_REPOSITORY_SYMBOLS: ReadonlyArray<{ why: string; words: readonly string[] }> = [
  {
    why: 'inside kafkajs, js-bson and Node: what our code works around, configures or measures, named by the library',
    words: ['OffsetManager.getCoordinator', 'headersTimeout', 'requestTimeout', 'setInternalBufferSize'],
  },
  {
    why: 'Kubernetes, Kafka ACL and engine names: fields and objects of the platforms we run on',
    words: [
      'minReplicas',
      'terminationGracePeriodSeconds',
      'exporters.otlp.endpoint',
      'Describe',
      'documentdb.localhost_connection_string',
      'documentdb.enableNewCompositeIndexOpClass',
      'defaultUseCompositeOpClass',
      'enableIndexOrderbyPushdown',
      'enableDescendingCompositeIndex',
      'cron.job',
      'Expression',
    ],
  },
  {
    why: 'what generators make from our OpenAPI document: their types, not ours',
    words: ['Discriminator()', 'AsSessionCompletedEvent()', 'RecoverEventsResponse', 'Any'],
  },
  { why: 'commands an operator types in the MongoDB shell', words: ['db.migrations.find()'] },
  { why: 'examples of names a reader would give to something new', words: ['order.updated.all-fields.v2'] },
  {
    why: "prom-client's default process metrics, which every service serves without naming them",
    words: ['nodejs_eventloop_lag_p99_seconds'],
  },
];

/** Paths a document names that are not in the repository until a command or the build writes them. */
const NOT_REPOSITORY_PATHS: ReadonlyArray<{ why: string; paths: readonly string[] }> = [
  {
    why: 'written by `npm run build -w @checkout/sdk` and `npm start`, ignored by git',
    paths: ['libs/sdk/dist/', 'libs/sdk/dist', 'index.d.ts', 'index.js', '.d.ts', '.stack.json'],
  },
  { why: "not files: the document the gateway serves, Kafka's own tool", paths: ['openapi.json', 'kafka-topics.sh'] },
];

export interface Finding {
  file: string;
  line: number;
  what: string;
}

const git = (...args: string[]): string[] =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter(Boolean);

/** Tracked files and new files not ignored (a document added in the change being checked counts). */
function repositoryFiles(): string[] {
  return git('ls-files', '--cached', '--others', '--exclude-standard').filter((file) => existsSync(join(ROOT, file)));
}

/** The documents checked: the README, docs/, and every other README (each package's, the soak's figures). */
function checkedDocuments(files: readonly string[]): string[] {
  return files.filter(
    (file) => file === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md')) || file.endsWith('/README.md'),
  );
}

const TEXT = /\.(ts|js|mjs|cjs|json|ya?ml|sh|py|go|java|html|css|cfg|toml|txt|properties|env|conf|tpl)$/;

interface Code {
  words: Set<string>;
  text: string;
}

/** Every word of the tracked non-Markdown text files (package-lock.json aside: its words are other people's). */
function readCode(files: readonly string[]): Code {
  const parts: string[] = [];
  for (const file of files) {
    if (!TEXT.test(file) && !/(^|\/)(Dockerfile|\.env[^/]*|[^/.]+)$/.test(file)) continue;
    if (file.endsWith('package-lock.json')) continue;
    const path = join(ROOT, file);
    if (statSync(path).size > 4 * 1024 * 1024) continue;
    parts.push(readFileSync(path, 'utf8'));
  }
  const text = parts.join('\n');
  return { text, words: new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []) };
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, spaces as hyphens, repeats numbered. */
function slugsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '');
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = (heading[1] ?? '')
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : ''));
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const ROOT_DIRS = [
  'libs',
  'services',
  'docs',
  'scripts',
  'deploy',
  'testkit',
  'test-e2e',
  'test-system',
  'bench',
  '.github',
];
const FILE_NAME = /^[\w.-]+\.(ts|js|mjs|json|ya?ml|md|sh|py|go|png|html|css|cfg)$/;

/** A path with placeholders (`<service>`, `*`, `…`) as a pattern over the repository's paths. */
function pathPattern(path: string): RegExp {
  const escaped = path
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/<[^>]*>/g, '[^/]+')
    .replace(/\*\*/g, '.*')
    .replace(/\*/g, '[^/]*')
    .replace(/…/g, '.*');
  return new RegExp(`^(.*/)?${escaped}${path.endsWith('/') ? '' : '(/.*)?'}$`);
}

// Paths from the root written in prose, outside backticks.
const ROOTED_PATH = new RegExp(
  `(?<![\\w./-])((?:${ROOT_DIRS.join('|').replace('.', '\\.')})/[\\w./<>*-]*[\\w/>*])`,
  'g',
);

/** An allow-list: its entries, and those a document has needed so far (the rest are reported as stale). */
interface AllowList {
  entries: ReadonlySet<string>;
  used: ReadonlySet<string>;
}

/** What a line of a document is checked against. */
interface Checks {
  /** The scripts of a workspace, by its folder or package name; the root's without one. */
  scripts: (workspace?: string) => Record<string, string> | undefined;
  anchorsOf: (file: string) => Set<string>;
  pathExists: (path: string, from: string) => boolean;
  symbolExists: (token: string) => boolean;
}

type Report = (what: string) => void;

export function checkDocs(): Finding[] {
  const files = repositoryFiles();
  const paths = pathChecks(files);
  const symbols = symbolChecks(readCode(files));
  const packages = workspaceScripts(files);
  const checks: Checks = {
    scripts: (workspace) => packages.get(workspace ?? '.'),
    anchorsOf: cachedAnchors(),
    pathExists: paths.pathExists,
    symbolExists: symbols.symbolExists,
  };
  const findings = checkedDocuments(files).flatMap((doc) => documentFindings(doc, checks));
  return [...findings, ...unneededAllowances([symbols, paths])];
}

/** Each workspace's scripts, by its folder and by its package name (`-w @checkout/sdk`). */
function workspaceScripts(files: readonly string[]): Map<string, Record<string, string>> {
  const packages = new Map<string, Record<string, string>>();
  for (const file of files.filter((f) => f === 'package.json' || f.endsWith('/package.json'))) {
    if (file.includes('fixtures/')) continue;
    const json = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as {
      name?: string;
      scripts?: Record<string, string>;
    };
    packages.set(dirname(file), json.scripts ?? {});
    if (json.name) packages.set(json.name, json.scripts ?? {});
  }
  return packages;
}

/** The anchors of a Markdown file, each file read once. */
function cachedAnchors(): (file: string) => Set<string> {
  const cache = new Map<string, Set<string>>();
  return (file) => {
    let anchors = cache.get(file);
    if (!anchors) cache.set(file, (anchors = slugsOf(readFileSync(join(ROOT, file), 'utf8'))));
    return anchors;
  };
}

function pathChecks(files: readonly string[]): AllowList & { pathExists: Checks['pathExists'] } {
  const fileSet = new Set(files);
  const dirs = new Set(
    files.flatMap((file) =>
      file
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const baseNames = new Set(files.map((file) => posix.basename(file)));
  const generated = new Set(NOT_REPOSITORY_PATHS.flatMap((group) => group.paths));
  const used = new Set<string>();
  const pathExists = (path: string, from: string): boolean => {
    if (generated.has(path)) return Boolean(used.add(path));
    const clean = path.replace(/[#:].*$/, '').replace(/\/$/, (s) => s);
    if (clean === '') return true;
    if (/[<*…]/.test(clean)) {
      const pattern = pathPattern(clean);
      return files.some((file) => pattern.test(file)) || [...dirs].some((dir) => pattern.test(`${dir}/`));
    }
    const bare = clean.replace(/\/$/, '');
    const candidates = [bare, posix.join(dirname(from), bare)];
    if (candidates.some((candidate) => fileSet.has(candidate) || dirs.has(candidate))) return true;
    if (!bare.includes('/')) return baseNames.has(bare) || dirs.has(bare);
    // A path given relative to a package or service (`src/config.ts`, `domain/owners.ts`): some file ends with it.
    return files.some((file) => file.endsWith(`/${bare}`)) || [...dirs].some((dir) => dir.endsWith(`/${bare}`));
  };
  return { entries: generated, used, pathExists };
}

function symbolChecks(code: Code): AllowList & { symbolExists: Checks['symbolExists'] } {
  const allowed = new Set(NOT_REPOSITORY_SYMBOLS.flatMap((group) => group.words));
  const used = new Set<string>();
  const isWord = (word: string) => code.words.has(word);
  const symbolExists = (token: string): boolean => {
    if (allowed.has(token)) return Boolean(used.add(token));
    const name = token.replace(/\(\)$/, '');
    // `A.b` exists when both parts do (a method of a class); a name with a hyphen must appear whole (a topic).
    if (name.includes('.')) return code.text.includes(name) || (!name.includes('-') && name.split('.').every(isWord));
    return isWord(name);
  };
  return { entries: allowed, used, symbolExists };
}

function documentFindings(doc: string, checks: Checks): Finding[] {
  const findings: Finding[] = [];
  let fenced = false;
  readFileSync(join(ROOT, doc), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const report: Report = (what) => findings.push({ file: doc, line: index + 1, what });
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return;
      }
      // npm scripts, in code blocks too.
      checkNpmScripts(line, checks, report);
      if (fenced) return;
      checkLinks(line, doc, checks, report);
      checkNamedThings(line, doc, checks, report);
    });
  return findings;
}

function checkNpmScripts(line: string, checks: Checks, report: Report): void {
  for (const match of line.matchAll(/\bnpm run ([\w:.-]+)([^`|;&]*)/g)) {
    const script = match[1] ?? '';
    const workspace = /(?:^|\s)(?:-w|--workspace)[ =](\S+)/.exec(match[2] ?? '')?.[1];
    const known = checks.scripts(workspace);
    if (!known) report(`\`npm run ${script}\` names workspace ${workspace}, which does not exist`);
    else if (!(script in known))
      report(`\`npm run ${script}\`: no such script in ${workspace ?? 'the root'} package.json`);
  }
}

/** Links: the file, and its anchor. */
function checkLinks(line: string, doc: string, checks: Checks, report: Report): void {
  for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z]+:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const file = path === '' ? doc : posix.normalize(posix.join(dirname(doc), decodeURIComponent(path)));
    if (!existsSync(join(ROOT, file))) {
      report(`link to ${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && file.endsWith('.md') && !checks.anchorsOf(file).has(anchor))
      report(`link to ${target}: ${file} has no heading or anchor "${anchor}"`);
  }
}

/** Backticked spans (paths, then identifiers), then the rooted paths of the prose around them. */
function checkNamedThings(line: string, doc: string, checks: Checks, report: Report): void {
  const prose = line.replace(/\]\([^)]*\)/g, ']');
  for (const match of prose.matchAll(/`([^`]+)`/g)) {
    const span = (match[1] ?? '').trim();
    for (const path of pathsIn(span)) if (!checks.pathExists(path, doc)) report(`\`${path}\`: no such file or folder`);
    for (const token of identifiersIn(span))
      if (!checks.symbolExists(token)) report(`\`${token}\`: not found in the code`);
  }
  const outside = prose.replace(/`[^`]*`/g, ' ');
  for (const match of outside.matchAll(ROOTED_PATH)) {
    const path = match[1] ?? '';
    if (!checks.pathExists(path, doc)) report(`${path}: no such file or folder`);
  }
}

// An allow-list entry no document needs any more goes, so that the list stays what it says.
function unneededAllowances(lists: readonly AllowList[]): Finding[] {
  return lists
    .flatMap((list) => [...list.entries])
    .filter((word) => !lists.some((list) => list.used.has(word)))
    .map((word) => ({
      file: 'test-system/policy/docs-check.ts',
      line: SELF.findIndex((line) => line.includes(`'${word}'`)) + 1,
      what: `\`${word}\` is allowed but no document names it`,
    }));
}

/** Repository paths in a backticked span: rooted paths and file names, alone or as a command's argument. */
function pathsIn(span: string): string[] {
  return span
    .split(/\s+/)
    .map((word) => word.replace(/^[("']+|[)"',;]+$/g, '').replace(/:\d+$/, ''))
    .filter(
      (word) =>
        !/^[a-z]+:\/\//i.test(word) &&
        !word.startsWith('~') &&
        !word.startsWith('/') &&
        !word.includes('=') &&
        (ROOT_DIRS.some((dir) => word.startsWith(`${dir}/`)) ||
          FILE_NAME.test(word) ||
          /^(src|test|domain|http|store|messaging|clients)\/[\w./-]+$/.test(word)),
    );
}

// Dotted names may hold hyphens after the first dot (`orders.public-events`, `webhook-dispatcher.retries`).
const IDENTIFIER = /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?|[a-z][\w-]*(?:\.[a-z][\w-]*)+)$/;

/** Whether a word is shaped like a symbol (not an English word or a lower-case value such as `pending`). */
function symbolShaped(token: string): boolean {
  const name = token.replace(/\(\)$/, '');
  if (name.includes('.')) return true; // Class.method, a topic, an event type, a consumer group
  return (
    /^[a-z][a-z0-9]*[A-Z]/.test(name) || // camelCase
    /^[A-Z][a-z0-9]+([A-Z]|$)/.test(name) || // PascalCase (`Leases`, `DomainError`)
    /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(name) || // SCREAMING_CASE
    /^[a-z][a-z0-9]*_[a-z0-9_]+$/.test(name) // snake_case: collections, metrics
  );
}

/**
 * The identifiers a backticked span names: the span itself when it is one, every function it calls (`scoped(…)`,
 * `a.b(…)`), every SCREAMING_CASE name in it (settings, codes), a metric's name before its labels.
 */
function identifiersIn(span: string): string[] {
  const candidates = new Set<string>();
  const add = (token: string | undefined, shaped = false) => {
    if (token && IDENTIFIER.test(token) && (shaped || symbolShaped(token))) candidates.add(token);
  };
  const onePath = !/\s/.test(span) && (span.includes('/') || FILE_NAME.test(span));
  if (!onePath) {
    add(span);
    for (const match of span.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(/g)) add(match[1], true);
    add(/^([a-z][\w]*)\{[^}]*\}$/.exec(span)?.[1]); // metric{labels}
  }
  // `<API_KEY>` is a placeholder, not a name.
  for (const match of span.replace(/<[^>]*>/g, ' ').matchAll(/(?<![\w$])([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?![\w$])/g))
    add(match[1]);
  return [...candidates];
}

export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.what}`).join('\n');
}
