/**
 * A large set in force goes to a review worker started later (a replacement after an out-of-heap or a
 * crash) encoded a run of documents at a time, as at its load, not at once in the turn the worker dies:
 * its encoding is dropped once every worker holds it, and with a set of 24 MB the replacement's copy, made
 * at once, held the Node server's main thread 0.1-0.9 s (cloned for the first replacement, encoded for
 * the next), every probe and review waiting. Counted, not timed: the encodings made at once. The heap runs
 * out inside one policy through a fault injected into the worker's sets (fixtures/heap-hungry-review-worker.ts).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeInputs } from '../../src/adapters/pool/encoded-set.js';
import { bundledWorkerEntry } from '../../src/adapters/pool/entry.js';
import { ReviewPool, type WorkerEntry } from '../../src/adapters/pool/index.js';
import { createApp } from '../../src/server/index.js';
import { labelling, refresherState } from '../reliability/helpers/label-policy.js';
import { post, testPools } from './pool-harness.js';

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
