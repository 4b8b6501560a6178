/**
 * A large set in force goes to a review worker started later (a replacement after an out-of-heap or a
 * crash, the spare) encoded a run of documents at a time, as at its load, not at once on the main thread:
 * its encoding is dropped once every worker holds it, and with a set of 24 MB the replacement's copy, made
 * at once, held the Node server's main thread 0.1-0.9 s (cloned for the first replacement, encoded for
 * the next), every probe and review waiting. Counted, not timed: the encodings made at once. The heap runs
 * out inside one policy through a fault injected into the worker's sets (fixtures/heap-hungry-review-worker.ts).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeInputs } from '../../src/adapters/pool/encoded-set.js';
import { bundledWorkerEntry } from '../../src/adapters/pool/entry.js';
import { ReviewPool, type WorkerEntry } from '../../src/adapters/pool/index.js';
import { createApp, resolveLimits, type ReviewJob } from '../../src/server/index.js';
import { labelPolicy, labelling, refresherState, SLOW_CONDITION } from '../reliability/helpers/label-policy.js';
import { waitFor } from './bundle.js';
import { poolGauges, post, REVIEW, testPools } from './pool-harness.js';

const pool = testPools();
let hungry: WorkerEntry;
beforeAll(async () => {
  hungry = await bundledWorkerEntry(new URL('../fixtures/heap-hungry-review-worker.ts', import.meta.url));
});

async function labels(response: Response): Promise<{ labels: string[]; warnings?: string[] }> {
  expect(response.status).toBe(200);
  const { response: answer } = (await response.json()) as { response: { allowed: boolean; patch?: string; warnings?: string[] } };
  expect(answer.allowed).toBe(true);
  const patch = JSON.parse(Buffer.from(answer.patch ?? 'W10=', 'base64').toString()) as { path: string }[];
  return { labels: patch.map((op) => op.path.split('/').pop()!).sort(), ...(answer.warnings ? { warnings: answer.warnings } : {}) };
}

describe('a large set sent to a replacement review worker', () => {
  it('is encoded in slices again, never at once, for each replacement; each answers with it', { timeout: 60_000 }, async () => {
    const encode = vi.fn(encodeInputs);
    const reviews: ReviewPool = pool({ workers: 1, heapMb: 16, graceMs: 1000, entry: hungry, encodeSet: encode });
    const state = refresherState([labelling('a-label', 'Fail'), labelling('exhaust-heap', 'Ignore')].join('---\n'));
    // Taken for a large set (the size is what the refresher measures): encoded ahead, as at a load.
    expect(await reviews.encodeAhead(state.inputs!, { bytes: 2_200_000, signal: new AbortController().signal })).toBe(true);
    reviews.prepare('default', state);
    const amender = createApp({ policies: () => state, reviewer: reviews.reviewer });
    // Each review runs its worker out of heap in exhaust-heap: its replacement gets the set and answers it.
    for (let round = 1; round <= 2; round++) {
      expect(await labels(await post(amender))).toEqual({ labels: ['a-label'], warnings: ['policy exhaust-heap was not applied: out of memory'] });
    }
    // Before: the first replacement got the documents cloned at once, the second encoded at once (1 call).
    expect(encode).not.toHaveBeenCalled();
  });
});

describe('a large set sent to the spare worker', () => {
  it('is encoded in slices again, never at once, each time a spare starts for it; each answers with it', { timeout: 120_000 }, async () => {
    const encode = vi.fn(encodeInputs);
    const reviews = pool({ workers: 1, spare: { afterMs: 50, heldMs: 60_000, idleMs: 300 }, encodeSet: encode });
    const gauge = poolGauges(reviews);
    const quiet = refresherState(labelPolicy('quiet', 'quiet', 1));
    expect(await reviews.encodeAhead(quiet.inputs!, { bytes: 2_200_000, signal: new AbortController().signal })).toBe(true);
    reviews.prepare('clusters/quiet', quiet);
    const job = (setName: string, state: ReviewJob['state'], signal = new AbortController().signal): ReviewJob => ({ body: REVIEW, setName, state, limits: resolveLimits({ reviewDeadlineMs: 120_000 }), signal });
    // A review of minutes holds the one worker (cancelled at the end); each review of the quiet set starts a spare.
    const holding = new AbortController();
    const slow = reviews.reviewer(job('clusters/busy', refresherState(labelPolicy('slow', 'slow', 6000, SLOW_CONDITION)), holding.signal));
    await waitFor('the slow review in the worker', () => gauge('amender_workers_busy') === 1);
    for (let round = 1; round <= 2; round++) {
      const answer = await reviews.reviewer(job('clusters/quiet', quiet));
      expect(answer).toMatchObject({ status: 200, outcome: 'patched' });
      expect(gauge('amender_workers_spare_started_total')).toBe(round);
      await waitFor('the spare stopped', () => gauge('amender_workers') === 1);
    }
    // Before: the first spare got the documents cloned at once, the second encoded at once (1 call).
    expect(encode).not.toHaveBeenCalled();
    holding.abort();
    await slow;
  });
});
