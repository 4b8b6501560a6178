/**
 * When a review whose worker ran out of heap is evaluated again, with the policy that was running left
 * out (the engine then answers that policy by its failurePolicy: skipped, with a warning): kube-apiserver
 * skips an Ignore policy that fails and applies the others, where answering the stopped review loses what
 * every policy changed (and a Fail policy that had completed denies). Only for an Ignore policy (a Fail
 * one denies either way), once per review, while enough of its deadline is left for a worker to start and
 * evaluate it, and within an allowance per policy set: each try may cost a worker, and a flood of reviews
 * crafted to exhaust the heap in an Ignore policy must not cost two workers each where answering them
 * costs one, nor one cluster's flood use up the tries of the others. A review whose worker ran out of heap
 * while reading its body, after running others, is evaluated again as it is, within the same bounds
 * (mayRetryAsIs).
 *
 *   const again = new EvaluateAgain(EVALUATE_AGAIN);
 *   again.register(registry);
 *   const policy = again.policyToLeaveOut(review, ordinal);   // undefined: answer the stopped review
 */
import { pipelinePolicies, type PipelinePolicy } from '../../engine/index.js';
import type { PolicySet } from '../../policyset/index.js';
import { clusterOfSet, Counter, type Registry } from '../../server/index.js';

export interface EvaluateAgainRate {
  /** Reviews of one policy set a second, on average, that may be evaluated again. */
  perSecond: number;
  /** The most of one set that may be evaluated again at once (also the allowance at the start). */
  burst: number;
  /** What must be left of a review's deadline: a new worker may have to start and build the set first. */
  minRemainingMs: number;
}

/**
 * One a second, four at once, per set: an honest review meeting a heavy policy is rare; a flood is
 * bounded. Half a second left: a worker starts and builds a set in 50–200 ms on two busy cores.
 */
export const EVALUATE_AGAIN: EvaluateAgainRate = { perSecond: 1, burst: 4, minRemainingMs: 500 };

/** What the decision needs of a review. */
export interface StoppedByHeap {
  setName: string;
  set: PolicySet;
  /** performance.now() when its deadline passes. */
  deadlineAt: number;
  /** Policies left out of it already: it was evaluated again once. */
  outOfHeap?: readonly number[];
}

export class EvaluateAgain {
  /** Each set's allowance: what is left, and when it was last topped up. */
  private readonly allowances = new Map<string, { left: number; at: number }>();
  private readonly count = new Counter(
    'amender_reviews_evaluated_again_total',
    'Reviews whose worker ran out of heap, evaluated again: without the Ignore policy it was on, or as they are when it was reading their body on a worker that had run others (by cluster; no label: the default set).',
  );

  constructor(private readonly rate: EvaluateAgainRate) {}

  /** amender_reviews_evaluated_again_total. */
  register(registry: Registry): void {
    registry.register(this.count);
  }

  /**
   * The policy to leave out of the review's next evaluation (counted), or undefined: it is answered as
   * stopped. `ordinal`: the policy its worker was on (`pipelinePolicies`).
   */
  policyToLeaveOut(review: StoppedByHeap, ordinal: number, now = performance.now()): PipelinePolicy | undefined {
    if (!this.mayTry(review, now)) return undefined;
    const policy = pipelinePolicies(review.set)[ordinal];
    if (policy?.failurePolicy !== 'Ignore' || !this.take(review, now)) return undefined;
    return policy;
  }

  /**
   * Whether a review whose worker ran out of heap before its first policy (reading the body), on a worker
   * that had run other reviews, is evaluated again as it is (counted): what filled that heap may be the
   * others' (a hostile review stopped at its deadline leaves its garbage), and a fresh worker has none. On
   * a worker's first review the body itself is the cause: answered as stopped.
   */
  mayRetryAsIs(review: StoppedByHeap, now = performance.now()): boolean {
    return this.mayTry(review, now) && this.take(review, now);
  }

  /** Once per review, with enough of its deadline left. */
  private mayTry(review: StoppedByHeap, now: number): boolean {
    return !review.outOfHeap && review.deadlineAt - now >= this.rate.minRemainingMs;
  }

  /** One try from the review's set's allowance, counted; false when none is left. */
  private take({ setName }: StoppedByHeap, now: number): boolean {
    let allowance = this.allowances.get(setName);
    if (!allowance) this.allowances.set(setName, (allowance = { left: this.rate.burst, at: now }));
    allowance.left = Math.min(this.rate.burst, allowance.left + (Math.max(0, now - allowance.at) * this.rate.perSecond) / 1000);
    allowance.at = Math.max(allowance.at, now);
    if (allowance.left < 1) return false;
    allowance.left -= 1;
    const cluster = clusterOfSet(setName);
    this.count.inc(cluster === undefined ? {} : { cluster });
    return true;
  }
}
