/**
 * The pool's answers to reviews whose evaluation did not end (they waited past their deadline, or their
 * worker was stopped): by failure policy, which parses the body again on the main thread (stopped.ts). A
 * review whose client has gone gets no answer made. A small body is answered at once; a large one in a
 * later turn of the event loop, one a turn, so that the connections' events (a client leaving, /healthz)
 * come in between, and only within the main thread's budget for it (stopped-budget.ts): beyond it, at once
 * with a 503. One whose worker died of it (out of heap) is answered in full all the same, its time
 * counted: there is at most one per worker started, and a worker's start and its review's parse cost more
 * than this parse.
 *
 *   const stopped = new StoppedReviews(finish, { answer: answerStoppedReview, budget: STOPPED_BUDGET });
 *   stopped.answer(review, ordinal, 'deadline');   // finish(review, answer) now or in a later turn
 */
import { abandonedAnswer, failure, Counter, type Registry, type ReviewAnswer, type ReviewJob } from '../../server/index.js';
import type { PolicySet } from '../../policyset/index.js';
import { stoppedReviewAnswer, type AnswerStopped, type StopReason } from './stopped.js';
import { StoppedBudget, type StoppedBudgetTiming } from './stopped-budget.js';

/** What answering a stopped review needs of the pool's record of it. */
export interface StoppableReview {
  job: ReviewJob;
  /** The set version it was read with. */
  set: PolicySet;
  bodySize: number;
  /** Answered already. */
  settled: boolean;
  /** Stopped, its large body waiting to be answered: what its worker says of it is dropped. */
  stopping?: { ordinal: number; reason: StopReason };
  /** Policies its last evaluation left out: one had run a worker out of heap on it (evaluate-again.ts). */
  outOfHeap?: readonly number[];
}

/** The `answer` label of amender_reviews_stopped_total. */
type StoppedAnswerKind = 'failure_policy' | 'overloaded' | 'client_gone';

export class StoppedReviews<R extends StoppableReview> {
  private readonly budget: StoppedBudget;
  /** Stopped reviews of large bodies, answered one per turn of the event loop (answerLarge). */
  private readonly large: R[] = [];
  private largePending = false;
  private readonly count = new Counter(
    'amender_reviews_stopped_total',
    'Reviews whose evaluation did not end (they waited past their deadline, or their worker was stopped), by answer: failure_policy (parsed again on the main thread and answered by failure policy), overloaded (a large body beyond the main thread\'s budget for these: 503), client_gone (its client had left: no answer made).',
  );
  private readonly seconds = new Counter('amender_reviews_stopped_seconds_total', 'Main-thread seconds spent answering stopped reviews by failure policy (parsing their bodies again).');

  constructor(
    /** Answers the review (once). */
    private readonly finish: (review: R, answer: ReviewAnswer) => void,
    private readonly options: { answer: AnswerStopped; budget: StoppedBudgetTiming },
  ) {
    this.budget = new StoppedBudget(options.budget);
  }

  /** amender_reviews_stopped_total, amender_reviews_stopped_seconds_total. */
  register(registry: Registry): void {
    registry.register(this.count);
    registry.register(this.seconds);
  }

  private counted(kind: StoppedAnswerKind): void {
    this.count.inc({ answer: kind });
  }

  /** Answers `review` by failure policy: policy `ordinal` was running (-1: none had started). */
  answer(review: R, ordinal: number, reason: StopReason): void {
    if (review.settled || review.stopping) return;
    if (review.job.signal.aborted) return this.clientGone(review);
    if (this.budget.isSmall(review.bodySize)) return this.finish(review, this.answerInFull(review, ordinal, reason));
    review.stopping = { ordinal, reason };
    this.large.push(review);
    this.scheduleLarge();
  }

  /** Its client went away: a stopped review waiting for its answer never gets one. */
  abandoned(review: R): void {
    if (review.stopping && !review.settled) this.counted('client_gone');
  }

  /** The reviews waiting for their answer, taken out (the pool is closing). */
  drain(): R[] {
    return this.large.splice(0);
  }

  private clientGone(review: R): void {
    this.counted('client_gone');
    this.finish(review, cancelledAnswer());
  }

  private scheduleLarge(): void {
    if (this.largePending || this.large.length === 0) return;
    this.largePending = true;
    setImmediate(this.answerLarge);
  }

  /** The next stopped review of a large body: answered by failure policy within the budget, else 503. */
  private readonly answerLarge = (): void => {
    this.largePending = false;
    const review = this.large.shift();
    if (review && !review.settled) {
      if (review.job.signal.aborted) this.clientGone(review);
      else if (review.stopping?.reason !== 'size' && !this.budget.admits(review.bodySize, performance.now())) {
        this.counted('overloaded');
        this.finish(review, overloadedAnswer(review.bodySize));
      } else {
        this.finish(review, this.answerInFull(review, review.stopping?.ordinal ?? -1, review.stopping?.reason ?? 'deadline'));
      }
    }
    // Scheduled after the answer: what happened meanwhile (a client leaving) is seen before the next one.
    this.scheduleLarge();
  };

  private answerInFull(review: R, ordinal: number, reason: StopReason): ReviewAnswer {
    const started = performance.now();
    try {
      this.counted('failure_policy');
      return stoppedReviewAnswer(review.job.body, review.set, review.job.limits.maxJsonDepth, { ordinal, reason, outOfHeap: review.outOfHeap ?? [] }, this.options.answer);
    } catch (error) {
      return failure(500, 'error', 'internal error while answering a stopped review', { error });
    } finally {
      const now = performance.now();
      this.budget.spend(now - started, now);
      this.seconds.inc({}, (now - started) / 1000);
    }
  }
}

/**
 * The answer to a stopped review of a large body beyond the main thread's budget for parsing them: a 503,
 * like the pool's other refusals, so that the API server applies the webhook's failurePolicy.
 */
function overloadedAnswer(bodySize: number): ReviewAnswer {
  const mib = (bodySize / 2 ** 20).toFixed(1);
  return failure(503, 'unavailable', `the server is overloaded with large reviews: it was not evaluated by its deadline, and this one (${mib} MiB) is answered without reading it again (the webhook's failurePolicy applies)`);
}

/** The answer to a review whose client went away. */
export function cancelledAnswer(): ReviewAnswer {
  return abandonedAnswer('the review was cancelled');
}
