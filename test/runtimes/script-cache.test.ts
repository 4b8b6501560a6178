/**
 * The script loader of the built Node server and Lambda engine (src/adapters/script-cache.ts), on small
 * scripts in a temporary folder: a script with or without the wrapper the build writes, the cache it
 * writes and then uses, and cache files it must not use or must not even read.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCachedScript, SCRIPT_WRAPPER_CLOSE, SCRIPT_WRAPPER_OPEN, scriptCacheFile, writeScriptCaches } from '../../src/adapters/script-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'amender-script-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A CommonJS script exporting `value`, written as the build writes it (`wrapped`) or as a plain file. */
function script(name: string, value: string, wrapped: boolean): string {
  const file = join(dir, name);
  const body = `module.exports = { value: ${JSON.stringify(value)}, dir: __dirname, twice: (n) => n * 2 };`;
  writeFileSync(file, wrapped ? `${SCRIPT_WRAPPER_OPEN}${body}${SCRIPT_WRAPPER_CLOSE}\n` : `${body}\n`);
  return file;
}

type Exports = { value: string; dir: string; twice(n: number): number };

describe('loadCachedScript', () => {
  it('runs a script the build wrapped, and a plain CommonJS file, with the module variables', () => {
    for (const wrapped of [true, false]) {
      const { exports, cache } = loadCachedScript<Exports>(script(`plain-${wrapped}.cjs`, 'x', wrapped));
      expect(exports.value).toBe('x');
      expect(exports.dir).toBe(dir);
      expect(exports.twice(21)).toBe(42);
      expect(cache).toBe('missing');
    }
  });

  it('uses the cache it wrote for the script, and refuses it once the script changed', () => {
    const file = script('cached.cjs', 'first', true);
    loadCachedScript<Exports>(file);
    expect(writeScriptCaches()).toContain(scriptCacheFile(file));
    const again = loadCachedScript<Exports>(file);
    expect(again.cache).toBe('used');
    expect(again.exports.value).toBe('first');
    script('cached.cjs', 'other', true);
    const changed = loadCachedScript<Exports>(file);
    expect(changed.cache).toBe('rejected');
    expect(changed.exports.value).toBe('other');
  });

  it('does not read a cache file far larger than a cache of its script can be', () => {
    const file = script('huge.cjs', 'y', true);
    writeFileSync(scriptCacheFile(file), '');
    truncateSync(scriptCacheFile(file), 2 ** 30); // a sparse gigabyte
    const before = process.resourceUsage().maxRSS;
    const { exports, cache } = loadCachedScript<Exports>(file);
    expect(cache).toBe('corrupt');
    expect(exports.value).toBe('y');
    // Read, the gigabyte would have been resident (maxRSS is in KiB).
    expect(process.resourceUsage().maxRSS - before).toBeLessThan(256 * 1024);
  });
});
