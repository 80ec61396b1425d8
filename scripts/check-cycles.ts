// `npm run lint` (and so `npm test`): no import cycles among the project's TypeScript files, type-only imports
// included (ESLint's cycle rules skip those, yet a cycle of types still ties the files' designs together).
// Modules are resolved as tsc resolves them (tsconfig.base.json: Bundler), workspace packages through their
// `exports`; each strongly connected group of two or more files is printed with the imports that close it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = process.cwd();
const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  resolveJsonModule: true,
};

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && existsSync(path.join(root, file)))
  .map((file) => realpathSync(path.join(root, file)));
const known = new Set(files);

/** Each file's imports (static, dynamic, `import type`, re-exports) that resolve to another file of the tree. */
const graph = new Map<string, string[]>();
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = new Set<string>();
  for (const { fileName } of importedFiles) {
    const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
    if (resolved === undefined) continue;
    const real = realpathSync(resolved);
    if (known.has(real) && real !== file) targets.add(real);
  }
  graph.set(file, [...targets]);
}

/** Tarjan's strongly connected components, iteratively (no recursion limit on long chains). */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        if (group.length > 1) groups.push(group);
      }
    }
  }
  return groups;
}

const cycles = stronglyConnected(graph);
const show = (file: string) => path.relative(root, file);
for (const group of cycles) {
  const members = new Set(group);
  console.error(`import cycle over ${group.length} files:`);
  for (const file of group.sort()) {
    const inside = (graph.get(file) ?? []).filter((target) => members.has(target)).map(show);
    console.error(`  ${show(file)} imports ${inside.join(', ')}`);
  }
}
console.error(`import cycles: ${cycles.length} (${files.length} files)`);
process.exit(cycles.length === 0 ? 0 : 1);
