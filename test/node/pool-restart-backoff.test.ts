/**
 * A review worker that can never serve (a broken bundle: it throws as it loads) was started again every
 * second for ever, each boot taking a core from the main thread. Its replacement now waits longer each
 * time in a row (1 s, 2 s, 4 s... at most 30 s), as the `review worker replaced` line says.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ReviewPool } from '../../src/adapters/pool/index.js';
import type { Logger } from '../../src/server/index.js';

const dir = mkdtempSync(join(tmpdir(), 'amender-broken-worker-'));
const broken = join(dir, 'worker.cjs');
writeFileSync(broken, "throw new Error('this worker bundle is broken');\n");
const pools: ReviewPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a review worker that dies as it loads, again and again', () => {
  it(
    'is started again after 1 s, then 2 s, then 4 s, each said in the log',
    async () => {
      const lines: Record<string, unknown>[] = [];
      const logger: Logger = (line) => void lines.push(line);
      pools.push(new ReviewPool({ workers: 1, heapMb: 64, graceMs: 200, queueLimit: 8, entry: { url: pathToFileURL(broken) }, logger }));
      const replaced = () => lines.filter((l) => l.msg === 'review worker replaced');
      await until('three replacements', () => replaced().length >= 3);
      expect(replaced().slice(0, 3).map((l) => [l.reason, l.restartInMs])).toEqual([
        ['crash', 1000],
        ['crash', 2000],
        ['crash', 4000],
      ]);
      expect(lines.find((l) => l.msg === 'review worker failed')?.error).toContain('this worker bundle is broken');
    },
    20_000,
  );
});
