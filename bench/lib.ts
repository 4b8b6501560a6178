/** Small measuring helpers shared by the benchmark suites (figures only; nothing here asserts). */

export interface Stats {
  median: number;
  p99: number;
  mean: number;
  samples: number;
}

/** Calls `fn` in batches until `minMillis` has passed; returns per-call nanoseconds. */
export function measure(fn: () => unknown, { minMillis = 300, batch = 0 } = {}): Stats {
  // Warm up and size the batch so one sample takes about 50 µs (timer resolution is ~1 µs).
  let size = batch;
  if (!size) {
    size = 1;
    for (;;) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < size; i++) fn();
      const ns = Number(process.hrtime.bigint() - t0);
      if (ns > 50_000 || size >= 1 << 20) break;
      size *= 2;
    }
  }
  const samples: number[] = [];
  const end = performance.now() + minMillis;
  while (performance.now() < end || samples.length < 20) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < size; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / size);
  }
  return summarize(samples);
}

/**
 * Like `measure`, for an async function (each call awaited): `warmup` calls, then batches of `batch` calls
 * until `minMillis` has passed and at least `minSamples` were taken; per-call nanoseconds.
 */
export async function measureAsync(
  fn: () => Promise<unknown>,
  { minMillis, warmup, minSamples, batch = 1 }: { minMillis: number; warmup: number; minSamples: number; batch?: number },
): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  const end = performance.now() + minMillis;
  while (performance.now() < end || samples.length < minSamples) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return summarize(samples);
}

export function summarize(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    median: at(0.5),
    p99: at(0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    samples: sorted.length,
  };
}

export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

export function table(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n## ${title}`);
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((s, i) => s.padEnd(width[i])).join('  ');
  console.log(line(cols));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}

interface RoundOptions {
  minMillis: number;
  warmup: number;
  minRounds: number;
  batch: number;
}

/**
 * Runs several functions in alternation — a batch of each per round, rounds until `minMillis` has passed
 * and at least `minRounds` were run, after `warmup` calls of each — and returns the per-call nanoseconds
 * of every batch, by function. A function returning a Promise is awaited; others are not.
 */
async function interleavedSamples(fns: readonly (() => unknown)[], { minMillis, warmup, minRounds, batch }: RoundOptions): Promise<number[][]> {
  // Which functions are asynchronous, from their first call; the others run in a plain loop (an await
  // per call would add its own cost to a synchronous baseline).
  const async: boolean[] = [];
  for (const fn of fns) {
    const r = fn();
    async.push(r instanceof Promise);
    if (r instanceof Promise) await r;
  }
  const runBatch = async (f: number, n: number) => {
    const fn = fns[f];
    if (async[f]) for (let i = 0; i < n; i++) await fn();
    else for (let i = 0; i < n; i++) fn();
  };
  for (let f = 0; f < fns.length; f++) await runBatch(f, warmup);
  const samples: number[][] = fns.map(() => []);
  const end = performance.now() + minMillis;
  while (performance.now() < end || samples[0].length < minRounds) {
    for (let f = 0; f < fns.length; f++) {
      const t0 = process.hrtime.bigint();
      await runBatch(f, batch);
      samples[f].push(Number(process.hrtime.bigint() - t0) / batch);
    }
  }
  return samples;
}

/**
 * Measures several functions in alternation (see interleavedSamples) and returns per-call nanoseconds for
 * each, in the order given. For ratios between figures of one run: on a loaded machine, the load of any
 * moment weighs on every function alike instead of on whichever happened to be measured then.
 */
export async function measureInterleaved(fns: readonly (() => unknown)[], options: RoundOptions): Promise<Stats[]> {
  return (await interleavedSamples(fns, options)).map(summarize);
}

/**
 * Two functions measured alternately (`batch` calls of each in turn), so both see the same load on a
 * shared machine: per-call nanoseconds of each, and of `b − a` per round — the figure to use when `b` is
 * `a` plus some overhead.
 */
export async function measureAsyncPair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  { minMillis, warmup, minSamples, batch = 5 }: { minMillis: number; warmup: number; minSamples: number; batch?: number },
): Promise<{ a: Stats; b: Stats; difference: Stats }> {
  const [sa, sb] = await interleavedSamples([a, b], { minMillis, warmup, minRounds: minSamples, batch });
  return { a: summarize(sa), b: summarize(sb), difference: summarize(sb.map((v, i) => v - sa[i])) };
}
