// npm run heap-summary -- <file.heapsnapshot> [--top=N]: what a V8 heap snapshot holds, without a browser. Node
// writes one after a full collection (HEAP_SNAPSHOT_DIR with SIGUSR2, scripts/lib/process-stack.ts), so it counts
// live objects only. Prints the total, the heap by node type (objects, strings, code, arrays…), and the N
// constructors (or, for strings and code, kinds) with the most self size: the bytes each object holds itself, not
// what it keeps alive.
import { readFileSync } from 'node:fs';

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const MiB = 1024 * 1024;

function summarize(snapshot: HeapSnapshot, top: number): string[] {
  const fields = snapshot.snapshot.meta.node_fields;
  const typeNames = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [
    number,
    number,
    number,
  ];
  const byType = new Map<string, number>();
  const byName = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = typeNames[snapshot.nodes[i + typeAt] ?? 0] ?? '?';
    const bytes = snapshot.nodes[i + sizeAt] ?? 0;
    // Objects by constructor; strings, code and the rest by their type (their names are their contents).
    const name =
      type === 'object' || type === 'closure'
        ? (snapshot.strings[snapshot.nodes[i + nameAt] ?? 0] ?? '?')
        : `(${type})`;
    total += bytes;
    byType.set(type, (byType.get(type) ?? 0) + bytes);
    const entry = byName.get(name) ?? { bytes: 0, count: 0 };
    entry.bytes += bytes;
    entry.count += 1;
    byName.set(name, entry);
  }
  const mib = (bytes: number) => (bytes / MiB).toFixed(1).padStart(7);
  return [
    `live heap: ${(total / MiB).toFixed(1)} MiB in ${(snapshot.nodes.length / width).toLocaleString('en')} objects`,
    '',
    'by type (MiB)',
    ...[...byType].sort((a, b) => b[1] - a[1]).map(([type, bytes]) => `  ${mib(bytes)}  ${type}`),
    '',
    `the ${top} largest by constructor or kind (MiB, objects)`,
    ...[...byName]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
      .map(([name, { bytes, count }]) => `  ${mib(bytes)}  ${String(count).padStart(8)}  ${name.slice(0, 80)}`),
  ];
}

const file = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
if (!file) {
  console.error('usage: npm run heap-summary -- <file.heapsnapshot> [--top=N]');
  process.exit(2);
}
const top = Number(process.argv.find((arg) => arg.startsWith('--top='))?.slice('--top='.length) ?? 25);
console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot, top).join('\n'));
