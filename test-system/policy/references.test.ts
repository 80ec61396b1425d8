import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Whoever clones the repository has only the repository: every decision the code cites (D1-D51) has its entry in
// docs/decisions.md, the contract is docs/spec.md, and nothing points at documents that live elsewhere (the
// product team's folders, issue trackers). History belongs in git, not in comments.

const root = resolve(import.meta.dirname, '../..');
const tracked = (...patterns: string[]): string[] =>
  execFileSync('git', ['ls-files', ...patterns], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
const codeFiles = tracked('*.ts', '*.js', '*.mjs', '*.sh', '*.java', '*.yaml', '*.yml', '*.py', '*.go');
const markdownFiles = tracked('*.md');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Every `[...](target)` of a Markdown file whose target is a file of the repository (not a URL, not a bare anchor). */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'));
}

describe('references resolve inside the repository', () => {
  const decisions = read('docs/decisions.md');

  it('When code cites a product decision Dn, then docs/decisions.md has its entry', () => {
    const cited = new Map<string, string>();
    for (const file of codeFiles) {
      for (const match of read(file).matchAll(/\bD(\d{1,2})\b/g)) cited.set(`D${match[1]}`, file);
    }
    const missing = [...cited].filter(([decision]) => !decisions.includes(`id="${decision.toLowerCase()}"`));
    expect(cited.size).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('When code or docs cite where a rule comes from, then it is a document of the repository, never an issue number or a folder outside it', () => {
    const outside = /\b[Ii]ssues? #?\d+|\.\.\/shared\/|\bstyle\.md\b|\barchitecture\.md\b|service-spec\.md/;
    const offenders = [...codeFiles, ...markdownFiles].flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim().slice(0, 100)}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  it('When code cites "flow N", then N is one of the five flows of docs/engineering.md', () => {
    const engineering = read('docs/engineering.md');
    expect(engineering).toContain('## The five flows');
    const flows = codeFiles.flatMap((file) => [...read(file).matchAll(/\b[Ff]low (\d+)\b/g)].map((m) => Number(m[1])));
    expect(flows.length).toBeGreaterThan(0);
    expect(flows.filter((flow) => flow < 1 || flow > 5)).toEqual([]);
  });

  it('When a Markdown page links to a file of the repository, then that file exists', () => {
    const broken = markdownFiles.flatMap((file) =>
      relativeLinks(read(file))
        .map((target) => target.split('#')[0] ?? '')
        .filter((path) => path !== '' && !existsSync(resolve(root, dirname(file), decodeURIComponent(path))))
        .map((path) => `${file} → ${path}`),
    );
    expect(broken).toEqual([]);
  });
});
