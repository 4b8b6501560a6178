/**
 * A CommonJS bundle compiled with V8's code cache *taken after it ran*. Node's own compile cache
 * (`module.enableCompileCache`) is made when a module is compiled, so it holds only what V8 compiles
 * eagerly: the functions a first review calls would be compiled on that call, at every cold start.
 * `vm.Script` can produce a cache at any moment (`createCachedData()`), and V8 then includes every
 * function compiled so far; the build runs the bundle once, answers a sample review, and keeps that cache
 * beside the bundle (scripts/compile-cache.mjs). Measured in bench/README.md ("Node's compile cache does
 * not hold what the first review runs").
 *
 * The worst case is a start without the cache, never a wrong one: the file carries a CRC-32 and the
 * length of the bundle it was made from and a CRC-32 of the cache (V8 checks only the source's length,
 * and not the payload in release builds, so a cache of another bundle or a corrupt file must not reach
 * it), and V8 itself refuses a cache made with other flags or on another architecture
 * (`script.cachedDataRejected`; each V8 version reads its own file); the bundle is then compiled as
 * usual. CRC-32, not a cryptographic hash: these guard against accidents, and loading node:crypto alone
 * cost a cold start 6–30 ms. Nothing here
 * throws for a cache: a missing, unreadable, corrupt or refused one is reported in the returned status.
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own cache.
 *
 * This module must stay tiny and import nothing of the engine: the entries run it before the bundle.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';

const REGISTRY = Symbol.for('amender.loadedScripts');

/**
 * Set by the build's warm-up runs (scripts/compile-cache.mjs): the entries then write their caches — the
 * Node server's main thread as it exits (`main`), a review worker before its first answer (`worker`).
 */
const WRITE_CODE_CACHE_VARIABLE = 'AMENDER_WRITE_CODE_CACHE';

/** Whether this warm-up run is to write the cache of `thread` (see WRITE_CODE_CACHE_VARIABLE). */
export function writesCodeCache(thread: 'main' | 'worker'): boolean {
  return process.env[WRITE_CODE_CACHE_VARIABLE] === thread;
}

/** How a cache file's name ends (see scriptCacheFile). */
const SCRIPT_CACHE_SUFFIX = '.v8cache';

/**
 * The cache file of the bundle `file` for a V8 version (this one by default): `<bundle>.v8-<version>.v8cache`.
 * A cache serves only the V8 that made it, so the build writes one per Node it warms up with (the Node 24
 * that deployments run, and the Node that ran the build), and each Node reads its own.
 * scripts/compile-cache.mjs names the files the same way.
 */
export function scriptCacheFile(file: string, v8Version: string = process.versions.v8): string {
  return `${file}.v8-${v8Version.replace(/[^0-9A-Za-z.-]/g, '_')}${SCRIPT_CACHE_SUFFIX}`;
}
/** A cache file: this, then the CRC-32 and byte length of the bundle's text, the CRC-32 of V8's cache, V8's cache. */
const MAGIC = Buffer.from('amender-v8cache2');
const HEADER_BYTES = MAGIC.length + 12;

/** zlib.crc32 (Node ≥ 20.15); without it no cache is read or written. */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** What a cache file records of the bundle it was made from: its CRC-32 and byte length. */
interface SourceIdentity {
  crc: number;
  length: number;
}

function header(source: SourceIdentity, data: Uint8Array): Buffer {
  const fields = Buffer.alloc(12);
  fields.writeUInt32LE(source.crc, 0);
  fields.writeUInt32LE(source.length, 4);
  fields.writeUInt32LE(crc32!(data), 8);
  return Buffer.concat([MAGIC, fields]);
}

export type ScriptCacheStatus = 'used' | 'rejected' | 'missing' | 'corrupt' | 'disabled';

interface LoadedScript {
  file: string;
  script: vm.Script;
  source: SourceIdentity;
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

function readCache(file: string, source: SourceIdentity | undefined): { data?: Buffer; status: ScriptCacheStatus } {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1' || !source) return { status: 'disabled' };
  let bytes: Buffer;
  try {
    bytes = readFileSync(scriptCacheFile(file));
  } catch {
    return { status: 'missing' };
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { status: 'corrupt' };
  const data = bytes.subarray(HEADER_BYTES);
  const expected = header(source, data);
  // The cache's own checksum first: a corrupt file says nothing reliable about its source.
  if (!bytes.subarray(HEADER_BYTES - 4, HEADER_BYTES).equals(expected.subarray(HEADER_BYTES - 4))) return { status: 'corrupt' };
  if (!bytes.subarray(0, HEADER_BYTES).equals(expected)) return { status: 'rejected' };
  return { data, status: 'used' };
}

/**
 * The `require` a bundle gets: Node's built-ins straight from `process.getBuiltinModule` (Node ≥ 20.16),
 * anything else (a file beside the bundle) through Node's CommonJS loader, made on first use. A bundle
 * requires only built-ins at load, and the first CommonJS `require` of an ES module process sets up the
 * loader's tracing channels, a millisecond or two of every cold start.
 */
function bundleRequire(file: string): (id: string) => unknown {
  const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  let loader: NodeJS.Require | undefined;
  return (id) => builtin?.(id) ?? (loader ??= createRequire(file))(id);
}

/**
 * Compiles and runs the CommonJS bundle `file` (with its cache when one is usable) and returns its
 * `module.exports`, with what became of the cache.
 */
export function loadCachedScript<T>(file: string): { exports: T; cache: ScriptCacheStatus } {
  const bytes = readFileSync(file);
  const identity = crc32 ? { crc: crc32(bytes), length: bytes.length } : undefined;
  const cached = readCache(file, identity);
  const script = new vm.Script(wrap(bytes.toString('utf8')), { filename: file, ...(cached.data ? { cachedData: cached.data } : {}) });
  const cache: ScriptCacheStatus = cached.data && script.cachedDataRejected ? 'rejected' : cached.status;
  if (identity) loaded.push({ file, script, source: identity });
  const module = { exports: {} as T };
  const factory = script.runInThisContext() as (exports: T, require: (id: string) => unknown, module: { exports: T }, filename: string, dirname: string) => void;
  factory(module.exports, bundleRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache };
}

/**
 * Writes the cache of every script this process loaded, as V8 holds it now (every function compiled so
 * far included). The build calls it after its warm-up review; returns the files written.
 */
export function writeScriptCaches(): string[] {
  if (!crc32) throw new Error('writing a code cache needs zlib.crc32 (Node 20.15 or later)');
  return loaded.map(({ file, script, source }) => {
    const data = script.createCachedData();
    const cacheFile = scriptCacheFile(file);
    writeFileSync(cacheFile, Buffer.concat([header(source, data), data]));
    return cacheFile;
  });
}
