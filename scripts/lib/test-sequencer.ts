import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Which test file a worker takes next. Vitest's own order puts the longest files first only when its cache holds
// their last durations; a clean clone (CI) has none, so it starts the largest files first, and two of the slowest,
// small files then ran last, alone, while the tier's other workers idled. This sequencer starts the files named as
// slow first, slowest first, and leaves every other file in vitest's order.

/** Seeded Fisher-Yates (mulberry32), the order `--sequence.shuffle` asks for, replayable with its seed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A sequencer that starts `slowest` (paths from the root, slowest first) before the other files of their tier. */
export function slowestFirst(slowest: readonly string[]): typeof BaseSequencer {
  const rank = new Map(slowest.map((file, i) => [file, i]));
  return class SlowestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { sequence, root } = this.ctx.config;
      // A configured sequencer replaces the one --sequence.shuffle would pick: shuffle here (tiers stay apart, as
      // vitest groups the files by groupOrder after sorting).
      if (sequence.shuffle) return shuffled(files, sequence.seed);
      const rankOf = (spec: TestSpecification) => rank.get(spec.moduleId.slice(root.length + 1)) ?? rank.size;
      // Array.prototype.sort is stable: vitest's order stands between files of equal rank and across tiers.
      return (await super.sort(files)).sort(
        (a, b) =>
          a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
          a.project.name.localeCompare(b.project.name) ||
          rankOf(a) - rankOf(b),
      );
    }
  };
}
