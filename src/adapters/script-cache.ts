/**
 * A CommonJS bundle compiled with V8's code cache *taken after it ran*. Node's own compile cache
 * (`module.enableCompileCache`) is made when a module is compiled, so it holds only what V8 compiles
 * eagerly: the functions a first review calls would be compiled on that call, at every cold start.
 * `vm.Script` can produce a cache at any moment (`createCachedData()`), and V8 then includes every
 * function compiled so far; the build runs the bundle once, answers a sample review, and keeps that cache
 * beside the bundle (scripts/compile-cache.mjs). Measured in bench/JOURNAL.md ("Node's compile cache does
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
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';

const REGISTRY = Symbol.for('amender.loadedScripts');

/**
 * Set by the build's warm-up runs (scripts/compile-cache.mjs): the entries then write their caches — the
 * Node server's main thread as it exits (`main`), a review worker before its first answer (`worker`).
 */
export const WRITE_CODE_CACHE_VARIABLE = 'AMENDER_WRITE_CODE_CACHE';

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
/**
 * A cache file: this, then the CRC-32 and byte length of the bundle's text, the CRC-32 of V8's cache, four
 * zero bytes, V8's cache. The header is 32 bytes so that V8's cache starts 8-byte aligned in the buffer it
 * is read into: V8 copies cache data that is not pointer-aligned before reading it (1.5 MB more memory
 * touched at every cold start).
 */
const MAGIC = Buffer.from('amender-v8cache3');
const HEADER_BYTES = MAGIC.length + 16;

/** zlib.crc32 (Node ≥ 20.15); without it no cache is read or written. */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** What a cache file records of the bundle it was made from: its CRC-32 and byte length. */
interface SourceIdentity {
  crc: number;
  length: number;
}

function header(source: SourceIdentity, data: Uint8Array): Buffer {
  const fields = Buffer.alloc(HEADER_BYTES - MAGIC.length);
  fields.writeUInt32LE(source.crc, 0);
  fields.writeUInt32LE(source.length, 4);
  fields.writeUInt32LE(crc32!(data), 8);
  return Buffer.concat([MAGIC, fields]);
}

/** Where the CRC-32 of V8's cache sits in the header: the file's own checksum. */
const DATA_CRC = { start: MAGIC.length + 8, end: MAGIC.length + 12 };

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

/**
 * How the build opens each script (scripts/build.mjs, SCRIPT_WRAPPER): as Node's loader wraps a CommonJS
 * module, a function of the module's free variables. Written into the file, the wrapper costs nothing at
 * start; added here, V8 flattens the joined text into a second copy of the megabyte before compiling it.
 */
export const SCRIPT_WRAPPER_OPEN = '(function (exports, require, module, __filename, __dirname) {';
export const SCRIPT_WRAPPER_CLOSE = '\n})';

/** A script's text as a function expression: as the build wrote it, or wrapped here (a plain CommonJS file). */
function wrapped(source: string): string {
  return source.startsWith(SCRIPT_WRAPPER_OPEN) ? source : `${SCRIPT_WRAPPER_OPEN}${source}${SCRIPT_WRAPPER_CLOSE}`;
}

/** Reads `length` bytes of `fd` into the start of `into`. */
function readInto(fd: number, into: Buffer, length: number): void {
  for (let at = 0; at < length; ) {
    const n = readSync(fd, into, at, length - at, at);
    if (n === 0) throw new Error('file shorter than its size');
    at += n;
  }
}

/**
 * The largest cache read for a script of `scriptBytes`: V8's caches here are 1.3–1.7 times their script. A
 * file far larger is not one (and reading a huge or sparse file would cost the start its memory).
 */
function maxCacheBytes(scriptBytes: number): number {
  return 8 * scriptBytes + 1024 * 1024;
}

/** The open cache file of `file` for this V8 and its size, or why there is none to read. */
function openCache(file: string): { fd: number; size: number } | { status: ScriptCacheStatus } {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1' || !crc32) return { status: 'disabled' };
  let fd: number;
  try {
    fd = openSync(scriptCacheFile(file), 'r');
  } catch {
    return { status: 'missing' };
  }
  try {
    return { fd, size: fstatSync(fd).size };
  } catch {
    closeSync(fd);
    return { status: 'missing' };
  }
}

/** Checks a cache file's bytes against itself and the script's identity; V8's part of it when both agree. */
function checkCache(bytes: Buffer, source: SourceIdentity): { data?: Buffer; status: ScriptCacheStatus } {
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { status: 'corrupt' };
  const data = bytes.subarray(HEADER_BYTES);
  const expected = header(source, data);
  // The cache's own checksum first: a corrupt file says nothing reliable about its source.
  if (!bytes.subarray(DATA_CRC.start, DATA_CRC.end).equals(expected.subarray(DATA_CRC.start, DATA_CRC.end))) return { status: 'corrupt' };
  if (!bytes.subarray(0, HEADER_BYTES).equals(expected)) return { status: 'rejected' };
  return { data, status: 'used' };
}

/**
 * The script's text and identity, and its cache when one is usable. Both files go through one buffer, the
 * script's bytes first (copied into the text), then the cache's: on a cold start every page of fresh
 * memory is a page fault, and on a virtual machine a fault costs ~15 µs (bench/JOURNAL.md, stop 30).
 */
function readScript(file: string): { text: string; source?: SourceIdentity; cached: { data?: Buffer; status: ScriptCacheStatus } } {
  const fd = openSync(file, 'r');
  let cache = openCache(file);
  try {
    const size = fstatSync(fd).size;
    if ('fd' in cache && cache.size > maxCacheBytes(size)) {
      closeSync(cache.fd);
      cache = { status: 'corrupt' };
    }
    const buffer = Buffer.allocUnsafeSlow(Math.max(size, 'fd' in cache ? cache.size : 0));
    readInto(fd, buffer, size);
    const source = crc32 ? { crc: crc32(buffer.subarray(0, size)), length: size } : undefined;
    const text = buffer.toString('utf8', 0, size);
    if (!('fd' in cache)) return { text, source, cached: cache };
    // The text is a copy: the buffer can take the cache.
    try {
      readInto(cache.fd, buffer, cache.size);
    } catch {
      return { text, source, cached: { status: 'missing' } };
    }
    // openCache opens a cache only when there is a crc32, so the script has its identity.
    return { text, source, cached: checkCache(buffer.subarray(0, cache.size), source!) };
  } finally {
    closeSync(fd);
    if ('fd' in cache) closeSync(cache.fd);
  }
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
  const { text, source, cached } = readScript(file);
  const script = new vm.Script(wrapped(text), { filename: file, ...(cached.data ? { cachedData: cached.data } : {}) });
  const cache: ScriptCacheStatus = cached.data && script.cachedDataRejected ? 'rejected' : cached.status;
  if (source) loaded.push({ file, script, source });
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
