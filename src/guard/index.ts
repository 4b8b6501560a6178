/**
 * Per-review bounds shared by every engine loop: a deadline, a size bound on values built during the
 * review, and cancellation (the client went away). Core: imports nothing, runs in Node, workerd and the
 * CLI alike.
 *
 *   const guard = new ReviewGuard({ deadlineMs: 8000, maxValueBytes: 4 << 20, signal });
 *   guard.tick();                 // in hot loops: reads the clock every TICKS_PER_CHECK calls
 *   guard.tickBy(n);              // n steps done at once (a call over n elements)
 *   guard.check();                // at coarse steps (a rule, a policy): reads the clock now
 *   guard.checkSize(n, 'text');   // a value of n bytes (UTF-16 length is fine) is about to be built
 *
 * Each throws ReviewAborted, which engines turn into an error of the rule in progress answered by its
 * failure policy; the rules not yet run see `guard.aborted` and are answered the same way without running.
 *
 * OutcomeError (outcome-error.ts) is the base of the engines' control-flow errors: no stack trace captured.
 */

export type AbortReason = 'deadline' | 'size' | 'cancelled';

/** Thrown by a guard: the review ran past its deadline, built a value over the bound, or was cancelled. */
export class ReviewAborted extends Error {
  override name = 'ReviewAborted';
  constructor(
    readonly reason: AbortReason,
    message: string,
  ) {
    super(message);
  }
}

export interface ReviewGuardOptions {
  /** Milliseconds from now the review may run; Infinity for none. */
  deadlineMs: number;
  /** Largest value (string length, serialized size estimate, element count) a review may build. */
  maxValueBytes: number;
  /** Aborts the review once it reads aborted (the client closed the connection): an AbortSignal, or a lighter one. */
  signal?: { readonly aborted: boolean };
  /**
   * Polled with the clock: true once the review is cancelled from outside. A worker thread busy with a
   * review cannot receive messages, so its pool flips a SharedArrayBuffer slot that this reads.
   */
  isCancelled?: () => boolean;
  /** Milliseconds from an arbitrary origin (performance.now by default). */
  now?: () => number;
}

/** Calls of `tick()` between two clock reads: cheap enough for the innermost loops. */
export const TICKS_PER_CHECK = 256;

/** Default bound on any value built during a review: above the API server's 3 MiB request limit. */
export const DEFAULT_MAX_VALUE_BYTES = 6 * 1024 * 1024;

/** Default deadline of one review: below the 10 s default `timeoutSeconds` of a webhook. */
export const DEFAULT_REVIEW_DEADLINE_MS = 8_000;

const defaultNow = (): number => performance.now();

export class ReviewGuard {
  readonly maxValueBytes: number;
  readonly deadlineMs: number;
  private readonly deadlineAt: number;
  private readonly now: () => number;
  private readonly signal: { readonly aborted: boolean } | undefined;
  private readonly isCancelled: (() => boolean) | undefined;
  private ticks = 0;
  /** Set once the deadline passed or the review was cancelled; later checks throw it at once. */
  private tripped: ReviewAborted | undefined;

  constructor(options: ReviewGuardOptions) {
    this.now = options.now ?? defaultNow;
    this.deadlineMs = options.deadlineMs;
    this.deadlineAt = this.now() + options.deadlineMs;
    this.maxValueBytes = options.maxValueBytes;
    this.signal = options.signal;
    this.isCancelled = options.isCancelled;
  }

  /** Why the review was stopped, once it has been. */
  get aborted(): ReviewAborted | undefined {
    return this.tripped ?? this.poll();
  }

  /** Milliseconds left before the deadline (negative once passed). */
  remainingMs(): number {
    return this.deadlineAt - this.now();
  }

  /** Throws ReviewAborted when the deadline has passed or the review was cancelled. Reads the clock. */
  check(): void {
    const stop = this.tripped ?? this.poll();
    if (stop) throw stop;
  }

  /** `check()` once every TICKS_PER_CHECK calls: for loops over elements, characters, nodes. */
  tick(): void {
    if (++this.ticks < TICKS_PER_CHECK) return;
    this.ticks = 0;
    this.check();
  }

  /**
   * `tick()` for `n` steps of work done at once (a library call over a list of n elements): the clock is
   * read once the steps since the last read reach TICKS_PER_CHECK, however they came.
   */
  tickBy(n: number): void {
    this.ticks += n;
    if (this.ticks < TICKS_PER_CHECK) return;
    this.ticks = 0;
    this.check();
  }

  /** Throws ReviewAborted('size') when a value of `size` would pass the bound. */
  checkSize(size: number, what: string): void {
    if (size <= this.maxValueBytes) return;
    // Only this rule fails: later rules still run (a deadline or a cancellation stops them all).
    throw new ReviewAborted('size', `${what} would be ${size} bytes, over the limit of ${this.maxValueBytes} per value`);
  }

  private poll(): ReviewAborted | undefined {
    if (this.signal?.aborted || this.isCancelled?.()) {
      this.tripped = new ReviewAborted('cancelled', 'the review was cancelled (the client went away)');
    } else if (this.now() > this.deadlineAt) {
      this.tripped = new ReviewAborted('deadline', `deadline exceeded: the review took longer than ${this.deadlineMs} ms`);
    }
    return this.tripped;
  }
}

/** A fresh guard with the webhook's default bounds (a review given no guard of its own). */
export function defaultReviewGuard(): ReviewGuard {
  return new ReviewGuard({ deadlineMs: DEFAULT_REVIEW_DEADLINE_MS, maxValueBytes: DEFAULT_MAX_VALUE_BYTES });
}

/** A guard that never trips (unit tests of one module; never on a review path). */
export const UNBOUNDED_GUARD: ReviewGuard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: Number.MAX_SAFE_INTEGER });

export function isReviewAborted(err: unknown): err is ReviewAborted {
  return err instanceof ReviewAborted;
}

/** Longest error message an engine keeps whole (see boundMessage). */
export const MESSAGE_MAX_CHARS = 4096;

/**
 * `message`, or its first three quarters and last quarter of MESSAGE_MAX_CHARS around a note of how much
 * was cut. Engines' error messages quote values from the review (Kyverno's `Invalid type for: <value>`,
 * CEL's `no such key: <key>`), and a policy's message is repeated in the reply's status, its causes and
 * the audit annotation: bounded, a review's reply grows with its policies, not with policies × input.
 */
export function boundMessage(message: string): string {
  if (message.length <= MESSAGE_MAX_CHARS) return message;
  const head = message.slice(0, (MESSAGE_MAX_CHARS * 3) / 4);
  const tail = message.slice(message.length - MESSAGE_MAX_CHARS / 4);
  return `${head}… [${message.length - head.length - tail.length} characters cut] …${tail}`;
}

export { OutcomeError } from './outcome-error.js';
