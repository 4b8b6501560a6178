/**
 * The V8 compile cache shipped with a Node bundle. scripts/build.mjs runs each Node bundle (dist/node,
 * dist/lambda) once under the Node it deploys to and keeps what V8 compiled in `compile-cache/` beside the
 * entry (scripts/compile-cache.mjs); a cold start then deserializes that code instead of parsing and
 * compiling the bundle's JavaScript (module.enableCompileCache, Node ≥ 22.1).
 *
 * Whatever is found there, the worst case is a start without the cache: Node keys the cache by its
 * version, architecture and V8 flags (another Node looks in another subfolder and compiles from source),
 * checks each entry against a checksum and the source's hash (a corrupt or stale entry is compiled from
 * source), and reports a folder it cannot create instead of throwing. Node 20 has no such API: nothing
 * happens. NODE_DISABLE_COMPILE_CACHE=1 turns it off; a NODE_COMPILE_CACHE set by the operator wins.
 *
 * This module must stay tiny: it runs before the bundle's modules are compiled, which is why the entries
 * (node-entry.ts, aws-lambda-entry.ts, pool/worker-entry.ts) import the rest dynamically after calling it.
 */
import module from 'node:module';
import { fileURLToPath } from 'node:url';

/** The folder beside a bundle's entry that holds its compile cache. */
export const COMPILE_CACHE_FOLDER = 'compile-cache';

export type CompileCacheStatus = 'enabled' | 'already-enabled' | 'disabled' | 'failed' | 'unsupported';

type EnableCompileCache = (directory: string) => { status: number; message?: string };

const STATUS: Record<number, CompileCacheStatus> = { 0: 'failed', 1: 'enabled', 2: 'already-enabled', 3: 'disabled' };

/**
 * Turns on the compile cache in `compile-cache/` beside `entryUrl` (the entry's `import.meta.url`), keyed
 * by paths relative to that folder, so the bundle folder may move (dist/lambda → /var/task). Never throws.
 */
export function enableShippedCompileCache(entryUrl: string): CompileCacheStatus {
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return 'unsupported';
  // Node reads NODE_COMPILE_CACHE_PORTABLE when the cache is enabled; versions without portable keys
  // ignore it and key by absolute path (a moved bundle then compiles from source).
  const portable = process.env.NODE_COMPILE_CACHE_PORTABLE;
  try {
    process.env.NODE_COMPILE_CACHE_PORTABLE = '1';
    return STATUS[enable(fileURLToPath(new URL(`./${COMPILE_CACHE_FOLDER}/`, entryUrl))).status] ?? 'failed';
  } catch {
    return 'failed';
  } finally {
    if (portable === undefined) delete process.env.NODE_COMPILE_CACHE_PORTABLE;
    else process.env.NODE_COMPILE_CACHE_PORTABLE = portable;
  }
}
