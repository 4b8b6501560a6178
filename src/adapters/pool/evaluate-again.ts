/**
 * When a review whose worker ran out of heap is evaluated again, with the policy that was running left
 * out (the engine then answers that policy by its failurePolicy: skipped, with a warning): kube-apiserver
 * skips an Ignore policy that fails and applies the others, where answering the stopped review loses what
 * every policy changed (and a Fail policy that had completed denies). Only for an Ignore policy (a Fail
 * one denies either way), once per review, before its deadline, and within an allowance: each try may
 * cost a worker, and a flood of reviews crafted to exhaust the heap in an Ignore policy must not cost two
 * workers each where answering them costs one.
 *
 *   const again = new EvaluateAgain(EVALUATE_AGAIN);
 *   const policy = again.policyToLeaveOut(review, ordinal);   // undefined: answer the stopped review
 */
import { pipelinePolicies, type PipelinePolicy } from '../../engine/index.js';
import type { PolicySet } from '../../policyset/index.js';

export interface EvaluateAgainRate {
  /** Reviews a second, on average, that may be evaluated again. */
  perSecond: number;
  /** The most that may be evaluated again at once (also the allowance at the start). */
  burst: number;
}

/** One a second, four at once: an honest review meeting a heavy policy is rare; a flood is bounded. */
export const EVALUATE_AGAIN: EvaluateAgainRate = { perSecond: 1, burst: 4 };

/** What the decision needs of a review. */
export interface StoppedByHeap {
  set: PolicySet;
  /** performance.now() when its deadline passes. */
  deadlineAt: number;
  /** Its client went away. */
  gone: boolean;
  /** Policies left out of it already: it was evaluated again once. */
  leaveOut?: readonly number[];
}

export class EvaluateAgain {
  private allowance: number;
  private at: number;

  constructor(
    private readonly rate: EvaluateAgainRate,
    now = performance.now(),
  ) {
    this.allowance = rate.burst;
    this.at = now;
  }

  /** The policy to leave out of the review's next evaluation, or undefined: it is answered as stopped. */
  policyToLeaveOut(review: StoppedByHeap, ordinal: number, now = performance.now()): PipelinePolicy | undefined {
    if (review.leaveOut || review.gone || now >= review.deadlineAt) return undefined;
    const policy = pipelinePolicies(review.set)[ordinal];
    if (policy?.failurePolicy !== 'Ignore' || !this.take(now)) return undefined;
    return policy;
  }

  private take(now: number): boolean {
    this.allowance = Math.min(this.rate.burst, this.allowance + (Math.max(0, now - this.at) * this.rate.perSecond) / 1000);
    this.at = Math.max(this.at, now);
    if (this.allowance < 1) return false;
    this.allowance -= 1;
    return true;
  }
}
