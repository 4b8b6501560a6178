/**
 * When the pool evaluates a review again after its worker ran out of heap (src/adapters/pool/evaluate-again.ts):
 * only for an Ignore policy the worker was on, once per review, with enough of its deadline left, and
 * within an allowance per policy set that refills over time. A clock is passed in: no timing.
 */
import { describe, expect, it } from 'vitest';
import { EvaluateAgain, type StoppedByHeap } from '../../src/adapters/pool/evaluate-again.js';
import { Registry } from '../../src/server/index.js';
import { labelling, refresherState } from '../reliability/helpers/label-policy.js';


// Ordinals: 0 fail-first (Fail), 1 ignore-second (Ignore).
const STATE = refresherState([labelling('fail-first', 'Fail'), labelling('ignore-second', 'Ignore')].join('---\n'));
const SET = STATE.set!;
const review = (over: Partial<StoppedByHeap> = {}): StoppedByHeap => ({ setName: 'default', set: SET, deadlineAt: 10_000, ...over });
const rate = { perSecond: 1, burst: 2, minRemainingMs: 500 };

describe('evaluating a review again after a heap death', () => {
  it('(the set of these cases builds whole)', () => expect(SET.problems).toEqual([]));

  it('leaves out an Ignore policy the worker was on; never a Fail one, nor what is no policy', () => {
    const again = new EvaluateAgain(rate);
    expect(again.policyToLeaveOut(review(), 1, 0)?.name).toBe('ignore-second');
    expect(again.policyToLeaveOut(review(), 0, 0)).toBeUndefined();
    // -1: before the first policy (parsing); 2, the count: every policy had run (the reply patch).
    expect(again.policyToLeaveOut(review(), -1, 0)).toBeUndefined();
    expect(again.policyToLeaveOut(review(), 2, 0)).toBeUndefined();
  });

  it('once per review, and only with enough of its deadline left', () => {
    const again = new EvaluateAgain(rate);
    expect(again.policyToLeaveOut(review({ outOfHeap: [1] }), 1, 0)).toBeUndefined();
    expect(again.policyToLeaveOut(review({ deadlineAt: 499 }), 1, 0)).toBeUndefined();
    expect(again.policyToLeaveOut(review({ deadlineAt: 500 }), 1, 0)).toBeDefined();
  });

  it('within an allowance per set that refills at its rate, counted by cluster', () => {
    const again = new EvaluateAgain(rate);
    const registry = new Registry();
    again.register(registry);
    expect(again.policyToLeaveOut(review(), 1, 0)).toBeDefined();
    expect(again.policyToLeaveOut(review(), 1, 0)).toBeDefined();
    expect(again.policyToLeaveOut(review(), 1, 100)).toBeUndefined();
    // Another set has its own allowance.
    expect(again.policyToLeaveOut(review({ setName: 'clusters/prod' }), 1, 100)).toBeDefined();
    // One more a second later, then none until the next.
    expect(again.policyToLeaveOut(review(), 1, 1000)).toBeDefined();
    expect(again.policyToLeaveOut(review(), 1, 1000)).toBeUndefined();
    expect(again.policyToLeaveOut(review(), 1, 2000)).toBeDefined();
    const text = registry.render();
    expect(text).toMatch(/^amender_reviews_evaluated_again_total 4$/m);
    expect(text).toMatch(/^amender_reviews_evaluated_again_total\{cluster="prod"\} 1$/m);
  });

  it('as it is (out of heap reading it on a worker that had run others): once, with time left, from the same allowance', () => {
    const again = new EvaluateAgain(rate);
    expect(again.mayRetryAsIs(review({ outOfHeap: [] }), 0)).toBe(false);
    expect(again.mayRetryAsIs(review({ deadlineAt: 499 }), 0)).toBe(false);
    expect(again.mayRetryAsIs(review(), 0)).toBe(true);
    expect(again.policyToLeaveOut(review(), 1, 0)).toBeDefined();
    expect(again.mayRetryAsIs(review(), 0)).toBe(false);
  });
});
