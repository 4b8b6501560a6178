/**
 * Messages between the pool (main thread) and a review worker, and the layout of the memory they share.
 * Everything here crosses threads by structured clone: plain data only (a compiled set does not cross).
 */
import type { ParsedSource } from '../../policyset/index.js';
import type { ReviewAnswer, ReviewBody } from '../../server/index.js';

/** Main → worker: build this version of a set and keep it (the newest two per set are kept). */
export interface SetMessage {
  type: 'set';
  setName: string;
  generation: number;
  /** Its documents: cloned for the first worker it goes to, then encoded once for the others; encoded for all when encoded ahead (encoded-set.ts). */
  inputs?: readonly ParsedSource[];
  encoded?: SharedArrayBuffer;
}

/** One review of a ReviewsMessage, against a set version the worker was sent before. */
export interface ReviewMessage {
  /** Unique per pool; written back in the answer and read from the cancel slot. */
  id: number;
  setName: string;
  generation: number;
  /** The request body, bytes or text (a copy crosses; the worker decodes and parses it). */
  body: ReviewBody;
  maxJsonDepth: number;
  /** What is left of the review's deadline when it is handed to the worker (it keeps counting there). */
  deadlineMs: number;
  maxValueBytes: number;
  /** Policies answered by their failurePolicy without running: their evaluation ran a worker out of heap (pool.ts). */
  outOfHeap?: number[];
}

/**
 * Main → worker: answer these reviews, in order. Under load the pool hands over the reviews waiting in
 * one message (a batch) rather than one per hand-off: each hand-off wakes a thread, and waking threads is
 * what the pool's time went to. The worker claims each review before starting it (SLOT.CLAIMED), so the
 * pool can take back those not started when one review runs long.
 */
export interface ReviewsMessage {
  type: 'reviews';
  reviews: ReviewMessage[];
}

export type ToWorker = SetMessage | ReviewsMessage;

/**
 * The answers a worker sends in one message (wire.ts): the admission replies' JSON texts end to end in
 * `text` (serialized by the worker, so the main thread neither copies an object nor serializes it), every
 * other field of those answers and their policies' outcomes as `numbers`, with their strings by index into
 * `strings`; the other answers (errors, 503s) as they are in `others`, each with its place among the
 * message's `count`. Each object and array of a message costs the structured clone of both threads
 * (bench/JOURNAL.md, "Stop 46's run" and "Stop 47's run").
 */
export interface PackedAnswers {
  count: number;
  text: string;
  strings: string[];
  numbers: Float64Array;
  others?: OtherAnswer[];
}

/** An answer that is not an admission reply (`error`, when present, is a string: Errors lose their class). */
export interface OtherAnswer {
  /** Its place among the message's answers. */
  at: number;
  id: number;
  answer: Exclude<ReviewAnswer, { status: 200 }>;
}

/**
 * Worker → main: answers to reviews of the batch in progress, held by the worker for at most 2 ms
 * (serve.ts); the last come with `done`: the batch is over (every review claimed is answered), the worker
 * takes the next. A batch the pool took back before the worker started any ends with no answer.
 */
export interface AnswersMessage {
  type: 'answers';
  /** Absent when the message carries no answer. */
  answers?: PackedAnswers;
  done: boolean;
}

export type FromWorker = AnswersMessage;

/**
 * One Int32Array per worker over a SharedArrayBuffer: a busy worker cannot read messages, so progress and
 * cancellation go through memory. PROGRESS: the ordinal of the policy being evaluated (MAP policies of
 * `set.mutatingPolicies`, then `set.kyvernoPolicies`), -1 before the first. CANCEL: the id of a review the
 * main thread wants stopped (its client went away, or it was answered while its set was being built).
 * BUILDING: 1 while the worker builds a set version (bounded work the pool does not cut short).
 * CLAIMED: the index in the batch of the review the worker started last, -1 before the first (the pool
 * writes -1 as it sends a batch); the worker moves it from i - 1 to i with compareExchange before starting
 * review i, and the pool takes the reviews not started back by writing REVOKED (exchange: the value it
 * replaces says which review was the last started). LOADED: 1 once the worker's script runs (a broken
 * bundle never gets there); BUILT: how many set versions it has built (pool.ts's `unavailable` compares it
 * with how many it was sent: a worker that did both serves, though no review came yet).
 */
export const SLOT = { PROGRESS: 0, CANCEL: 1, BUILDING: 2, CLAIMED: 3, LOADED: 4, BUILT: 5 } as const;
export const SHARED_SLOTS = 6;
/** SLOT.CLAIMED once the pool has taken back the reviews of the batch not started. */
export const REVOKED = -2;

/** workerData of a review worker. */
export interface WorkerData {
  shared: SharedArrayBuffer;
  /** Nice levels the worker runs below the main thread (thread-priority.ts). */
  nice: number;
}
