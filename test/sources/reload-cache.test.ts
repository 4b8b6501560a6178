/**
 * A reload compiles only what changed: the CEL program cache (src/cel, shared by every set in the
 * process) is hit for unchanged expressions, across reloads and across clusters.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programCacheStats } from '../../src/cel/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-reload-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Cache misses and hits during `fn`. */
async function cacheDelta(fn: () => Promise<unknown>): Promise<{ misses: number; hits: number }> {
  const before = programCacheStats();
  await fn();
  const after = programCacheStats();
  return { misses: after.misses - before.misses, hits: after.hits - before.hits };
}

describe('reload and the CEL program cache', () => {
  it('compiles every expression once, then only the changed one', async () => {
    // Values unique to this run, so no earlier test has these expressions cached.
    const token = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    for (let i = 0; i < 5; i++) await writeFile(join(dir, `p${i}.yaml`), labelPolicy(`p${i}`, `k${i}`, `${token}-${i}`));
    const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });

    expect(await cacheDelta(() => r.refresh())).toEqual({ misses: 5, hits: 0 });

    await writeFile(join(dir, 'p2.yaml'), labelPolicy('p2', 'k2', `${token}-changed`));
    expect(await cacheDelta(() => r.refresh())).toEqual({ misses: 1, hits: 4 });
    expect(r.provider().set!.mutatingPolicies).toHaveLength(5);

    // Nothing changed: nothing is built, so nothing is even looked up.
    expect(await cacheDelta(() => r.refresh())).toEqual({ misses: 0, hits: 0 });

    // Another set (another cluster) with the same policies compiles nothing.
    const other = new PolicySetRefresher({ name: 'other', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });
    expect(await cacheDelta(() => other.refresh())).toEqual({ misses: 0, hits: 5 });
  });
});
