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
  inputs: readonly ParsedSource[];
}

/** Main → worker: answer one review against a set version the worker was sent before. */
export interface ReviewMessage {
  type: 'review';
  /** Unique per pool; written back in the answer and read from the cancel slot. */
  id: number;
  setName: string;
  generation: number;
  /** The request body, bytes or text (a copy crosses; the worker decodes and parses it). */
  body: ReviewBody;
  maxJsonDepth: number;
  /** What is left of the review's deadline when it is handed to the worker. */
  deadlineMs: number;
  maxValueBytes: number;
}

export type ToWorker = SetMessage | ReviewMessage;

type AdmittedAnswer = Extract<ReviewAnswer, { status: 200 }>;

/**
 * A review answer as it crosses back (wire.ts): an admission reply travels as its JSON text (serialized by
 * the worker, so the main thread neither copies the object nor serializes it) and its outcomes packed,
 * other answers as they are.
 */
export type WireAnswer = Exclude<ReviewAnswer, AdmittedAnswer> | (Omit<AdmittedAnswer, 'body' | 'outcomes'> & { bodyText: string; packedOutcomes?: PackedOutcomes });

/** Policy outcomes as numbers (wire.ts): `strings` holds each text once, `fields` refers to it by index. */
export interface PackedOutcomes {
  strings: string[];
  fields: Float64Array;
}

/** Worker → main: the answer to review `id` (`error`, when present, is a string: Errors lose their class). */
export interface AnswerMessage {
  type: 'answer';
  id: number;
  answer: WireAnswer;
}

export type FromWorker = AnswerMessage;

/**
 * One Int32Array per worker over a SharedArrayBuffer: a busy worker cannot read messages, so progress and
 * cancellation go through memory. PROGRESS: the ordinal of the policy being evaluated (MAP policies of
 * `set.mutatingPolicies`, then `set.kyvernoPolicies`), -1 before the first. CANCEL: the id of a review the
 * main thread wants stopped (its client went away, or it was answered while its set was being built).
 * BUILDING: 1 while the worker builds a set version (bounded work the pool does not cut short).
 */
export const SLOT = { PROGRESS: 0, CANCEL: 1, BUILDING: 2 } as const;
export const SHARED_SLOTS = 3;

/** workerData of a review worker. */
export interface WorkerData {
  shared: SharedArrayBuffer;
}
