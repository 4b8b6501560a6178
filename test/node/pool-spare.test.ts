/**
 * The review pool's spare worker (src/adapters/pool/pool.ts, watchForSpare), from source: when every
 * worker is busy and a review of a set none of them serves waits, one spare worker starts, takes only the
 * reviews of sets no other worker serves, and stops once it has none. When every worker is held by a long
 * review, a spare starts for any set, the one set of a server without clusters included; a review it runs
 * for as long as it runs one goes back to wait for a regular worker. Short reviews of one set never start one.
 * Assertions are about order and counts, never about durations.
 */
import { describe, expect, it } from 'vitest';
import { resolveLimits, type ReviewAnswer, type ReviewJob } from '../../src/server/index.js';
import type { ReviewPool } from '../../src/adapters/pool/index.js';
import { waitFor } from './bundle.js';
import { poolGauges, REVIEW, testPools } from './pool-harness.js';
import { labelPolicy, refresherState, SLOW_CONDITION } from '../reliability/helpers/label-policy.js';

const pool = testPools();

/** Seconds of review even on a fast machine (15 million comprehension steps). */
const SLOW = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
const QUICK = refresherState(labelPolicy('quick', 'quick', 1));

/** One set whose reviews are slow for a Pod labelled `app: slow` only (two conditions of 15 million steps). */
const SOMETIMES_SLOW = refresherState(labelPolicy('mixed', 'mixed', 1500, `object.metadata.labels.app != "slow" || ${SLOW_CONDITION}`, 2));
const SLOW_POD = REVIEW.replace('"app": "checkout"', '"app": "slow"');

/**
 * The same with four times the bindings: its slow review runs half a minute or more, so that it is still
 * running when a spare has started and answered a quick review even on a loaded machine (the test cancels
 * it then); its quick review, a fraction of a second on a spare just started, runs its 12,000 bindings'
 * first clause.
 */
const SOMETIMES_VERY_SLOW = refresherState(labelPolicy('mixed', 'mixed', 6000, `object.metadata.labels.app != "slow" || ${SLOW_CONDITION}`, 2));

function review(reviews: ReviewPool, setName: string, state: ReviewJob['state'], order: string[], name: string, body = REVIEW, signal = new AbortController().signal): Promise<ReviewAnswer> {
  const job: ReviewJob = { body, setName, state, limits: resolveLimits({ reviewDeadlineMs: 120_000 }), signal };
  return reviews.reviewer(job).then((answer) => {
    order.push(name);
    return answer;
  });
}

describe("the review pool's spare worker", () => {
  it('starts when one set holds every worker and another waits, takes only the other, and stops when idle', { timeout: 120_000 }, async () => {
    const logged: Record<string, unknown>[] = [];
    const reviews = pool({ workers: 1, spare: { afterMs: 50, heldMs: 60_000, idleMs: 300 }, logger: (record) => void logged.push(record) });
    const gauge = poolGauges(reviews);
    const order: string[] = [];
    const slow = review(reviews, 'clusters/busy', SLOW, order, 'slow');
    await waitFor('the slow review in the worker', () => gauge('amender_workers_busy') === 1);
    // The busy set's own second review waits for its worker; the spare is not for it.
    const slowAgain = review(reviews, 'clusters/busy', SLOW, order, 'slow again');
    const quick = review(reviews, 'clusters/quiet', QUICK, order, 'quick');
    expect((await quick).status).toBe(200);
    expect(order).toEqual(['quick']);
    expect(gauge('amender_workers_spare_started_total')).toBe(1);
    expect(gauge('amender_workers')).toBe(2);
    expect(gauge('amender_review_queue_length')).toBe(1);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'spare review worker started', busyWith: ['clusters/busy'], workers: 2 }));
    // Without a review of another set, the spare stops; the busy set's reviews are answered by its worker.
    await waitFor('the spare stopped', () => gauge('amender_workers') === 1);
    expect(gauge('amender_review_queue_length')).toBe(1);
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'spare review worker stopped', workers: 1 }));
    expect((await slow).status).toBe(200);
    expect((await slowAgain).status).toBe(200);
    expect(order).toEqual(['quick', 'slow', 'slow again']);
    expect(gauge('amender_workers_spare_started_total')).toBe(1);
  });

  it('serves a set waiting while every worker is busy with other sets, and none of theirs', { timeout: 120_000 }, async () => {
    const reviews = pool({ workers: 2, staggerMs: 1, spare: { afterMs: 50, heldMs: 60_000, idleMs: 60_000 } });
    const gauge = poolGauges(reviews);
    const order: string[] = [];
    const a = review(reviews, 'clusters/a', SLOW, order, 'a');
    const b = review(reviews, 'clusters/b', SLOW, order, 'b');
    await waitFor('both workers busy', () => gauge('amender_workers_busy') === 2);
    const aAgain = review(reviews, 'clusters/a', QUICK, order, 'a again');
    const c = review(reviews, 'clusters/c', QUICK, order, 'c');
    expect((await c).status).toBe(200);
    expect(order).toEqual(['c']);
    // The spare, idle again, leaves a's second review to a regular worker: the first of a's or b's to be free.
    await waitFor('the spare idle', () => gauge('amender_workers_busy') === 2);
    expect(gauge('amender_review_queue_length')).toBe(1);
    for (const answer of await Promise.all([a, b, aAgain])) expect(answer.status).toBe(200);
    expect(order.indexOf('a again')).toBeGreaterThan(Math.min(order.indexOf('a'), order.indexOf('b')));
    expect(gauge('amender_workers_spare_started_total')).toBe(1);
  });

  it('never starts for one set while its reviews are shorter than heldMs, however long they wait', { timeout: 120_000 }, async () => {
    const reviews = pool({ workers: 1, spare: { afterMs: 1, heldMs: 60_000, idleMs: 10_000 } });
    const gauge = poolGauges(reviews);
    const order: string[] = [];
    const first = review(reviews, 'default', SLOW, order, 'first');
    await waitFor('the first review in the worker', () => gauge('amender_workers_busy') === 1);
    const second = review(reviews, 'default', SLOW, order, 'second');
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(order).toEqual(['first', 'second']);
    expect(gauge('amender_workers_spare_started_total')).toBe(0);
    expect(gauge('amender_workers')).toBe(1);
  });

  it('starts for one set when every worker is held by a long review: it answers the quick reviews, and a long one it takes goes back to a regular worker', { timeout: 120_000 }, async () => {
    const logged: Record<string, unknown>[] = [];
    // heldMs: long enough for a spare just started to run each quick review of this set on a loaded machine
    // (at 300 ms, the first of them was moved off too there), well short of the slow review.
    const reviews = pool({ workers: 1, spare: { afterMs: 20, heldMs: 1500, idleMs: 60_000 }, logger: (record) => void logged.push(record) });
    const gauge = poolGauges(reviews);
    const order: string[] = [];
    const slow = review(reviews, 'default', SOMETIMES_SLOW, order, 'slow', SLOW_POD);
    await waitFor('the slow review in the worker', () => gauge('amender_workers_busy') === 1);
    // First in line, so the spare takes it first; it gives it back after heldMs, then takes the quick ones.
    const slowAgain = review(reviews, 'default', SOMETIMES_SLOW, order, 'slow again', SLOW_POD);
    const quick = [1, 2, 3].map((i) => review(reviews, 'default', SOMETIMES_SLOW, order, `quick ${i}`));
    for (const answer of await Promise.all(quick)) {
      expect(answer.status).toBe(200);
      expect(answer.outcome).toBe('patched');
    }
    expect(order).toEqual(['quick 1', 'quick 2', 'quick 3']);
    expect(gauge('amender_workers_spare_started_total')).toBe(1);
    expect(gauge('amender_reviews_moved_off_spare_total')).toBe(1);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'spare review worker started', busyWith: ['default'], heldByLongReviews: true }));
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'review moved off the spare worker', policySet: 'default', afterMs: 1500 }));
    // Both long reviews run to their end on the regular worker: patched, not answered by failure policy.
    for (const answer of await Promise.all([slow, slowAgain])) {
      expect(answer.status).toBe(200);
      expect(answer.outcome).toBe('patched');
    }
    expect(order).toEqual(['quick 1', 'quick 2', 'quick 3', 'slow', 'slow again']);
    // The spare stopped the long review itself: it was not replaced (a spare is not), it is still there.
    expect(gauge('amender_workers')).toBe(2);
  });

  it('already running and idle, takes a review waiting behind a new long one once the worker is held', { timeout: 120_000 }, async () => {
    // heldMs: long enough for a spare just started to run a quick review of this set on a loaded machine
    // (one it runs longer goes back to wait for the worker: that is another test's case).
    const reviews = pool({ workers: 1, spare: { afterMs: 20, heldMs: 3000, idleMs: 60_000 } });
    const gauge = poolGauges(reviews);
    const order: string[] = [];
    // A long review holds the worker: the spare starts and answers the quick one while it runs (it is
    // cancelled then: how long the spare takes to start depends on the machine, not what is tested).
    const slowOne = new AbortController();
    const first = review(reviews, 'default', SOMETIMES_VERY_SLOW, order, 'slow 1', SLOW_POD, slowOne.signal);
    await waitFor('the first slow review in the worker', () => gauge('amender_workers_busy') === 1);
    expect((await review(reviews, 'default', SOMETIMES_VERY_SLOW, order, 'quick 1')).outcome).toBe('patched');
    expect(order).toEqual(['quick 1']);
    slowOne.abort();
    await first;
    expect(gauge('amender_workers')).toBe(2);
    // The spare idles (it stops after idleMs). Another long review takes the worker, a quick one comes
    // before the worker has been held heldMs: the spare takes it when it has been, not after the long one.
    await waitFor('the worker free again', () => gauge('amender_workers_busy') === 0);
    const slowTwo = new AbortController();
    const second = review(reviews, 'default', SOMETIMES_VERY_SLOW, order, 'slow 2', SLOW_POD, slowTwo.signal);
    await waitFor('the second slow review in the worker', () => gauge('amender_workers_busy') === 1);
    const quick = await review(reviews, 'default', SOMETIMES_VERY_SLOW, order, 'quick 2');
    expect(quick.outcome).toBe('patched');
    expect(order).toEqual(['quick 1', 'slow 1', 'quick 2']);
    slowTwo.abort();
    await second;
    expect(gauge('amender_workers_spare_started_total')).toBe(1);
  });
});
