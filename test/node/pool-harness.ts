/**
 * What the review-pool tests share: the pod-create review (and its UPDATE, which the CREATE-only label
 * policies do not match), posting it to an app, reading a metric, and pools made from the worker script
 * from source, closed after the file's tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ReviewPool, workerEntryBeside, type PoolOptions, type WorkerEntry } from '../../src/adapters/pool/index.js';
import { Registry, type createApp } from '../../src/server/index.js';
import { ROOT } from './built.js';

export const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

/** The same Pod updated, which the CREATE-only label policies do not match: a quick review. */
export const UPDATE_REVIEW = REVIEW.replace('"operation": "CREATE"', '"operation": "UPDATE"');

export type App = ReturnType<typeof createApp>;

export function post(app: App, signal?: AbortSignal, body = REVIEW): Promise<Response> {
  return Promise.resolve(app.app.fetch(new Request('http://x/mutate', { method: 'POST', body, headers: { 'content-type': 'application/json' }, ...(signal ? { signal } : {}) })));
}

/** A metric without labels, as /metrics renders it. */
export function metric(app: App, name: string): number {
  return metricIn(app.metrics.registry, name);
}

/** A reader of a pool's own metrics without labels (amender_workers, amender_workers_busy, …). */
export function poolGauges(pool: ReviewPool): (name: string) => number {
  const registry = new Registry();
  pool.registerMetrics(registry);
  return (name) => metricIn(registry, name);
}

function metricIn(registry: Registry, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(registry.render())?.[1]);
}

/** Call at the top of a test file: a maker of pools (one worker, queue of 8 unless told), all closed after the file. */
export function testPools(): (options?: Partial<PoolOptions>) => ReviewPool {
  let entry: WorkerEntry;
  const pools: ReviewPool[] = [];
  beforeAll(async () => {
    entry = await workerEntryBeside(import.meta.url);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });
  return (options = {}) => {
    const made = new ReviewPool({ workers: 1, heapMb: 256, graceMs: 200, queueLimit: 8, entry, ...options });
    pools.push(made);
    return made;
  };
}
