/**
 * A CommonJS bundle compiled with V8's code cache *taken after it ran*. Node's own compile cache
 * (`module.enableCompileCache`) is made when a module is compiled, so it holds only what V8 compiles
 * eagerly: the functions a first review calls would be compiled on that call, at every cold start. `vm.Script` can produce a
 * cache at any moment (`createCachedData()`), and V8 then includes every function compiled so far; the
 * build runs the bundle once, answers a sample review, and keeps that cache beside the bundle
 * (scripts/compile-cache.mjs). Measured in bench/README.md ("Node's compile cache does not hold what the
 * first review runs").
 *
 * The worst case is a start without the cache, never a wrong one: the file carries a SHA-256 of the
 * bundle it was made from and one of the cache (V8 checks only the source's length, and not the payload
 * in release builds, so a cache of another bundle or a corrupt file must not reach it), and V8 itself
 * refuses a cache made by another V8 version or other flags (`script.cachedDataRejected`); the bundle is
 * then compiled as usual. Nothing here throws for a cache:
 * a missing, unreadable, corrupt or refused one is reported in the returned status. NODE_DISABLE_COMPILE_CACHE=1
 * turns it off, as it does Node's own cache.
 *
 * This module must stay tiny and import nothing of the engine: the entries run it before the bundle.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

const REGISTRY = Symbol.for('amender.loadedScripts');

/**
 * Set by the build's warm-up run (scripts/compile-cache.mjs): the entries then write their caches — the
 * Node server's main thread as it exits, a review worker before its first answer.
 */
export const WRITE_CODE_CACHE_VARIABLE = 'AMENDER_WRITE_CODE_CACHE';

/** The cache file beside a bundle: `<bundle>.v8cache`. */
export const SCRIPT_CACHE_SUFFIX = '.v8cache';
/** A cache file: this, the SHA-256 of the bundle's text, the SHA-256 of V8's cache, V8's cache. */
const MAGIC = Buffer.from('amender-v8cache1');
const HASH_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 2 * HASH_BYTES;

const sha256 = (data: string | Uint8Array): Buffer => createHash('sha256').update(data).digest();

export type ScriptCacheStatus = 'used' | 'rejected' | 'missing' | 'corrupt' | 'disabled';

interface LoadedScript {
  file: string;
  script: vm.Script;
  source: string;
}

/**
 * Scripts loaded in this thread, for writeScriptCaches (the build's warm-up run). Global, because the
 * entry that loads a script and the script itself each bundle their own copy of this module.
 */
const loaded: LoadedScript[] = ((globalThis as { [REGISTRY]?: LoadedScript[] })[REGISTRY] ??= []);

/** Wraps a CommonJS bundle's text as Node's loader does: a function of the module's free variables. */
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

function readCache(file: string, source: string): { data?: Buffer; status: ScriptCacheStatus } {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1') return { status: 'disabled' };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file + SCRIPT_CACHE_SUFFIX);
  } catch {
    return { status: 'missing' };
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { status: 'corrupt' };
  const data = bytes.subarray(HEADER_BYTES);
  const madeFrom = bytes.subarray(MAGIC.length, MAGIC.length + HASH_BYTES);
  const checksum = bytes.subarray(MAGIC.length + HASH_BYTES, HEADER_BYTES);
  if (!sha256(data).equals(checksum)) return { status: 'corrupt' };
  if (!sha256(source).equals(madeFrom)) return { status: 'rejected' };
  return { data, status: 'used' };
}

/**
 * Compiles and runs the CommonJS bundle `file` (with its cache when one is usable) and returns its
 * `module.exports`, with what became of the cache.
 */
export function loadCachedScript<T>(file: string): { exports: T; cache: ScriptCacheStatus } {
  const source = readFileSync(file, 'utf8');
  const cached = readCache(file, source);
  const script = new vm.Script(wrap(source), { filename: file, ...(cached.data ? { cachedData: cached.data } : {}) });
  const cache: ScriptCacheStatus = cached.data && script.cachedDataRejected ? 'rejected' : cached.status;
  loaded.push({ file, script, source });
  const module = { exports: {} as T };
  const factory = script.runInThisContext() as (exports: T, require: NodeJS.Require, module: { exports: T }, filename: string, dirname: string) => void;
  factory(module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache };
}

/**
 * Writes the cache of every script this process loaded, as V8 holds it now (every function compiled so
 * far included). The build calls it after its warm-up review; returns the files written.
 */
export function writeScriptCaches(): string[] {
  return loaded.map(({ file, script, source }) => {
    const data = script.createCachedData();
    writeFileSync(file + SCRIPT_CACHE_SUFFIX, Buffer.concat([MAGIC, sha256(source), sha256(data), data]));
    return file + SCRIPT_CACHE_SUFFIX;
  });
}
