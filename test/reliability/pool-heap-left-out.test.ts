/**
 * A review whose evaluation runs its worker out of heap in a policy with failurePolicy Ignore is evaluated
 * again without that policy: the others apply, as kube-apiserver applies them when an Ignore policy fails,
 * and the reply warns of the one left out. Answering the stopped review instead loses what every policy
 * changed, and a Fail policy that had completed then denies the request. The heap runs out inside the one
 * policy through a fault injected into the worker's sets (fixtures/heap-hungry-review-worker.ts); the
 * pool, its 16 MB worker heap and the worker's death are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledWorkerEntry } from '../../src/adapters/pool/entry.js';
import { ReviewPool, type PoolOptions, type WorkerEntry } from '../../src/adapters/pool/index.js';
import { createApp, type LogRecord } from '../../src/server/index.js';
import { post, REVIEW } from '../node/pool-harness.js';
import { kyvernoLabelling, labelling, refresherState } from './helpers/label-policy.js';

/** In pipeline order: a-label, exhaust-heap (and exhaust-heap-too), z-label (MAP, by name), then k-label (Kyverno). */
function policies(hungry: 'Fail' | 'Ignore', twoHungry = false): string {
  const hungryToo = twoHungry ? [labelling('exhaust-heap-too', 'Ignore')] : [];
  return [labelling('a-label', 'Fail'), labelling('exhaust-heap', hungry), ...hungryToo, labelling('z-label', 'Fail'), kyvernoLabelling('k-label', 'Fail')].join('---\n');
}

let entry: WorkerEntry;
const pools: ReviewPool[] = [];
beforeAll(async () => {
  // Node 20 carries no TypeScript loader into worker threads: the fixture worker is bundled, as for the real one.
  entry = await bundledWorkerEntry(new URL('../fixtures/heap-hungry-review-worker.ts', import.meta.url));
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

function serve(hungry: 'Fail' | 'Ignore', options: Partial<PoolOptions> = {}, yaml = policies(hungry)) {
  const logs: LogRecord[] = [];
  const pool = new ReviewPool({ workers: 1, heapMb: 16, graceMs: 1000, queueLimit: 4, entry, logger: (r) => logs.push(r), ...options });
  pools.push(pool);
  const state = refresherState(yaml);
  expect(state.set?.problems).toEqual([]);
  const app = createApp({ policies: () => state, reviewer: pool.reviewer, logger: (r) => logs.push(r) });
  pool.registerMetrics(app.metrics.registry);
  return { app, logs, metrics: () => app.metrics.registry.render() };
}

async function reply(response: Response): Promise<any> {
  expect(response.status).toBe(200);
  return ((await response.json()) as any).response;
}

function labelsPatched(response: any): string[] {
  const patch = JSON.parse(Buffer.from(response.patch ?? 'W10=', 'base64').toString('utf8')) as { path: string }[];
  return patch.map((op) => op.path.replace('/metadata/labels/', '')).sort();
}

describe('a review that runs its worker out of heap in one policy', () => {
  it('Ignore: evaluated again without it; the other policies apply and the reply warns of it', { timeout: 60_000 }, async () => {
    const { app, logs, metrics } = serve('Ignore');
    const response = await reply(await post(app));
    expect(response.allowed).toBe(true);
    expect(labelsPatched(response)).toEqual(['a-label', 'k-label', 'z-label']);
    expect(response.warnings).toEqual(['policy exhaust-heap was not applied: out of memory']);
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(metrics()).toMatch(/^amender_reviews_evaluated_again_total 1$/m);
    expect(logs.some((l) => l.msg === 'review evaluated again without a policy' && l.policy === 'exhaust-heap')).toBe(true);
    // It does so on every such review: the replacement worker answers the next one the same way.
    const next = await reply(await post(app));
    expect(labelsPatched(next)).toEqual(['a-label', 'k-label', 'z-label']);
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 2$/m);
  });

  it('Fail: denied naming it, not evaluated again', { timeout: 60_000 }, async () => {
    const { app, metrics } = serve('Fail');
    const response = await reply(await post(app));
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain("policy 'exhaust-heap'");
    expect(response.status.message).toContain('out of memory');
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(metrics()).not.toMatch(/^amender_reviews_evaluated_again_total \d/m);
  });

  it('Fail, in a Kyverno policy after a MAP policy that had completed: the denial names the one that ran out of heap', { timeout: 60_000 }, async () => {
    // a-label (MAP, Fail) completed and its mutation is lost with the worker, so it denies too; but
    // exhaust-heap-k was running: it speaks first, as it would have, had it failed while running.
    const { app, metrics } = serve('Fail', {}, [labelling('a-label', 'Fail'), kyvernoLabelling('exhaust-heap-k', 'Fail')].join('---\n'));
    const response = await reply(await post(app));
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain('policy ClusterPolicy/exhaust-heap-k: not evaluated: out of memory');
  });

  it('Ignore, in a Kyverno policy that runs before one listed ahead of it: evaluated again without it', { timeout: 60_000 }, async () => {
    // Kyverno runs ClusterPolicies by name (b-label, exhaust-heap-k, k-label), the set lists them as
    // written: the ordinal the worker reports is the set's, and only exhaust-heap-k is left out.
    const yaml = [labelling('a-label', 'Fail'), kyvernoLabelling('k-label', 'Fail'), kyvernoLabelling('exhaust-heap-k', 'Ignore'), kyvernoLabelling('b-label', 'Ignore')];
    const { app, metrics } = serve('Ignore', {}, yaml.join('---\n'));
    const response = await reply(await post(app));
    expect(response.allowed).toBe(true);
    expect(labelsPatched(response)).toEqual(['a-label', 'b-label', 'k-label']);
    expect(response.warnings).toEqual(['policy ClusterPolicy/exhaust-heap-k was not applied: out of memory']);
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(metrics()).toMatch(/^amender_reviews_evaluated_again_total 1$/m);
  });

  it('beyond the allowance for evaluating again (each try may cost a worker), answered as a stopped review', { timeout: 60_000 }, async () => {
    // One at once, none added back: the second such review is answered as before this allowance existed.
    const { app, metrics } = serve('Ignore', { evaluateAgain: { perSecond: 0, burst: 1, minRemainingMs: 0 } });
    expect(labelsPatched(await reply(await post(app)))).toEqual(['a-label', 'k-label', 'z-label']);
    const second = await reply(await post(app));
    expect(second.allowed).toBe(false);
    // z-label (Fail) was not evaluated, and what a-label (Fail) changed was lost with the worker.
    expect(second.status.code).toBe(403);
    expect(second.status.message).toContain("policy 'z-label'");
    expect(second.status.message).toContain('not evaluated: out of memory');
    expect(metrics()).toMatch(/^amender_reviews_evaluated_again_total 1$/m);
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 2$/m);
  });

  it('once per review: a second evaluation that runs out of heap too is answered as a stopped review', { timeout: 60_000 }, async () => {
    const { app, metrics } = serve('Ignore', {}, policies('Ignore', true));
    const response = await reply(await post(app));
    // exhaust-heap was left out, then exhaust-heap-too ran the second worker out of heap: z-label (Fail) was not evaluated.
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain("policy 'z-label'");
    expect(response.status.message).toContain('not evaluated: out of memory');
    expect(metrics()).toMatch(/^amender_reviews_evaluated_again_total 1$/m);
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 2$/m);
  });
});

describe('a review whose worker runs out of heap reading it', () => {
  /** The pod-create review with `change` made to its Pod. */
  function podReview(change: (pod: any) => void): string {
    const review = JSON.parse(REVIEW);
    change(review.request.object);
    return JSON.stringify(review);
  }
  // a-label (Fail) and leak-heap (Ignore, which keeps most of the heap for good on a Pod labelled leak).
  const yaml = [labelling('a-label', 'Fail'), labelling('leak-heap', 'Ignore')].join('---\n');
  // 140,000 containers: about 7.7 MB of JSON (under the 8 MiB body limit), which the leaky worker cannot
  // read any more and a fresh one can.
  const large = () => podReview((pod) => (pod.spec.containers = Array.from({ length: 140_000 }, (_, i) => ({ name: `c${i}`, image: 'registry.example.com/app:1' }))));

  it('after other reviews on its worker: evaluated again as it is, on another worker', { timeout: 60_000 }, async () => {
    const { app, logs, metrics } = serve('Ignore', { heapMb: 128 }, yaml);
    const leaking = await reply(await post(app, undefined, podReview((pod) => (pod.metadata.labels = { ...pod.metadata.labels, leak: 'true' }))));
    expect(labelsPatched(leaking)).toEqual(['a-label']);
    const response = await reply(await post(app, undefined, large()));
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(response.allowed).toBe(true);
    expect(labelsPatched(response)).toEqual(['a-label']);
    expect(metrics()).toMatch(/^amender_reviews_evaluated_again_total 1$/m);
    expect(logs.some((l) => l.msg === 'review evaluated again on another worker')).toBe(true);
  });

  it("on a worker's first review: its body is the cause, answered by failure policy", { timeout: 60_000 }, async () => {
    const { app, metrics } = serve('Ignore', { heapMb: 16 }, yaml);
    const response = await reply(await post(app, undefined, large()));
    expect(metrics()).toMatch(/^amender_workers_replaced_total\{reason="heap"\} 1$/m);
    expect(response.allowed).toBe(false);
    expect(response.status.message).toContain("policy 'a-label'");
    expect(metrics()).not.toMatch(/^amender_reviews_evaluated_again_total \d/m);
  });
});
