/**
 * The first review worker started early by the server's entry (src/adapters/pool/early.ts): the pool
 * adopts it when it has the same script and heap, and starts its own when the early one is gone or
 * different; the settings that say no worker, or that cannot be read simply, start none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORKER_HEAP_MB, WORKER_YOUNG_GENERATION_MB, pendingEarlyWorker, ReviewPool, startEarlyWorker, takeEarlyWorker, workerEntryBeside, type WorkerEntry } from '../../src/adapters/pool/index.js';
import { createApp } from '../../src/server/index.js';
import { ROOT } from './built.js';
import { labelPolicy, refresherState } from '../reliability/helpers/label-policy.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');


async function review(pool: ReviewPool): Promise<number> {
  const state = refresherState(labelPolicy('labelled', 'labelled', 1));
  const app = createApp({ policies: () => state, reviewer: pool.reviewer });
  const res = await app.app.fetch(new Request('http://x/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }));
  return res.status;
}

let entry: WorkerEntry;
const pools: ReviewPool[] = [];
beforeAll(async () => {
  entry = await workerEntryBeside(import.meta.url);
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await takeEarlyWorker(new URL('file:///none'), { heapMb: 0, nice: 0 })?.worker.terminate();
});

function pool(heapMb = DEFAULT_WORKER_HEAP_MB, nice?: number): ReviewPool {
  const made = new ReviewPool({ workers: 1, heapMb, graceMs: 500, queueLimit: 8, entry, ...(nice === undefined ? {} : { nice }) });
  pools.push(made);
  return made;
}

describe('the early review worker', () => {
  it('is adopted by the pool as its first worker, which answers through it', { timeout: 30_000 }, async () => {
    startEarlyWorker(entry.url, {});
    const early = pendingEarlyWorker()!.worker;
    let messages = 0;
    const reviews = pool();
    expect(pendingEarlyWorker()).toBeUndefined();
    early.on('message', () => messages++);
    expect(await review(reviews)).toBe(200);
    expect(messages).toBeGreaterThan(0);
  });

  it('runs with the heap limit and a young generation of fixed size, as every worker the pool starts', { timeout: 30_000 }, async () => {
    startEarlyWorker(entry.url, { AMENDER_WORKER_HEAP_MB: '300' });
    const early = pendingEarlyWorker()!.worker;
    await new Promise<void>((resolve) => early.once('online', () => resolve()));
    expect(early.resourceLimits).toMatchObject({ maxOldGenerationSizeMb: 300, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB });
  });

  it('is not adopted once it is gone: the pool starts its own', { timeout: 30_000 }, async () => {
    startEarlyWorker(entry.url, {});
    const early = pendingEarlyWorker()!.worker;
    let messages = 0;
    early.on('message', () => messages++);
    await early.terminate();
    const reviews = pool();
    expect(pendingEarlyWorker()).toBeUndefined();
    expect(await review(reviews)).toBe(200);
    expect(messages).toBe(0);
  });

  it('is stopped, not adopted, by a pool with another heap', { timeout: 30_000 }, async () => {
    startEarlyWorker(entry.url, { AMENDER_WORKER_HEAP_MB: '300' });
    const early = pendingEarlyWorker()!.worker;
    const exited = new Promise<void>((resolve) => early.once('exit', () => resolve()));
    const reviews = pool(256);
    await exited;
    expect(await review(reviews)).toBe(200);
  });

  it('is stopped, not adopted, by a pool that runs its workers at another priority', { timeout: 30_000 }, async () => {
    startEarlyWorker(entry.url, { AMENDER_WORKER_NICE: '3' });
    const early = pendingEarlyWorker()!.worker;
    const exited = new Promise<void>((resolve) => early.once('exit', () => resolve()));
    const reviews = pool(DEFAULT_WORKER_HEAP_MB, 4);
    await exited;
    expect(await review(reviews)).toBe(200);
  });

  it('is not started when the settings say no worker, or cannot be read simply', () => {
    for (const env of [{ AMENDER_WORKERS: '0' }, { AMENDER_WORKERS: 'two' }, { AMENDER_WORKER_HEAP_MB: '-1' }, { AMENDER_WORKER_HEAP_MB: '1e3' }, { AMENDER_WORKER_NICE: '20' }, { AMENDER_WORKER_NICE: '-2' }]) {
      startEarlyWorker(entry.url, env);
      expect(pendingEarlyWorker(), JSON.stringify(env)).toBeUndefined();
    }
  });
});
