/**
 * A small seeded PRNG (mulberry32) for the fuzz sweeps: the same seed gives the same cases on every run
 * and platform, so a failure names its seed and case number and reproduces.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)];
  }
}

/** The seeds a sweep runs: those of `variable` (comma-separated, e.g. FUZZ_CEL_SEEDS=1,2,3) when set, else `fallback`. */
export function seedsFrom(variable: string | undefined, fallback: readonly number[]): number[] {
  return variable ? variable.split(',').map(Number) : [...fallback];
}
