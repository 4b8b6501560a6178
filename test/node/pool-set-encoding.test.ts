/**
 * A policy set version goes to the first review worker as a clone and to the others as one shared encoding
 * (src/adapters/pool/encoded-set.ts), made once on the main thread: posting the documents structured-cloned
 * them once per worker there, seconds with a large set of CRDs and several workers, in which no probe or
 * review was answered. Every worker still builds the version and answers with it.
 */
import { describe, expect, it, vi } from 'vitest';
import { encodeInputs } from '../../src/adapters/pool/encoded-set.js';
import { createApp } from '../../src/server/index.js';
import { labelPolicy, refresherState } from '../reliability/helpers/label-policy.js';
import { poolGauges, post, testPools } from './pool-harness.js';

const pool = testPools();

describe('a set version sent to the review workers', () => {
  it('is encoded once for every worker, and each builds it and answers with it', async () => {
    const encode = vi.fn(encodeInputs);
    const reviews = pool({ workers: 3, staggerMs: 0, encodeSet: encode });
    const gauges = poolGauges(reviews);
    // The workers after the first start at once (staggerMs 0), on the next turn.
    await vi.waitFor(() => expect(gauges('amender_workers')).toBe(3), { timeout: 20_000 });
    const state = refresherState(labelPolicy('add-label', 'team', 1), 7);
    reviews.prepare('default', state);
    expect(encode).toHaveBeenCalledTimes(1);
    const amender = createApp({ policies: () => state, reviewer: reviews.reviewer });
    // Three reviews at once: each worker takes one (or more), all with the version sent.
    const answers = await Promise.all([post(amender), post(amender), post(amender)]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { response: { allowed: boolean; patch?: string } };
      expect(body.response.allowed).toBe(true);
      expect(Buffer.from(body.response.patch!, 'base64').toString()).toContain('team');
    }
    expect(encode).toHaveBeenCalledTimes(1);
  }, 40_000);
});
