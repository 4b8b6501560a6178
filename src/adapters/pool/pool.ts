/**
 * A pool of worker threads evaluating reviews off the main thread, so `/healthz`, `/readyz`, `/metrics`,
 * other clusters' reviews and shutdown never wait for a review in progress.
 *
 *   const pool = new ReviewPool({ workers, heapMb, graceMs, queueLimit, entry });
 *   createApp({ ..., reviewer: pool.reviewer });
 *   pool.prepare(setName, state);            // optional: build a set version in the workers ahead of its reviews
 *   pool.registerMetrics(app.metrics.registry);
 *   await pool.close();
 *
 * One batch of reviews per worker at a time. Reviews wait in a bounded queue (queue.ts), fair between
 * policy sets: each set's reviews are served in turn with the others', and a full queue makes room for a
 * set with fewer waiting by refusing the newest review of the set with the most. Once per turn of
 * the event loop (setImmediate) each free worker takes its share of them (at most MAX_BATCH) in one
 * message and answers them in order, so that under load one thread hand-off serves several reviews: waking
 * a thread per review is what the pool's time went to (npm run bench -- 40). A batch that has not ended
 * STEAL_AFTER_MS after it was sent gives the reviews it has not started back to the queue, so a review
 * running long holds up the others of its batch no longer than that. A worker gets each set version
 * (`PolicySetState.inputs` and `.generation`) once and builds it itself (a compiled set holds closures
 * that cannot cross threads); a review names the version it was read with.
 *
 * The workers start one after the other: one at once (or the one the server's entry started before the
 * server's script, early.ts), the others once its first answer is passed on, when a review has to wait
 * for a worker, or STAGGER_MS after the start, whichever comes first. Booting a
 * worker (loading the engine into a new isolate, then compiling it on its first review) takes as much CPU
 * as the server's own start; on the one or two cores a function usually gets, workers booting side by
 * side delayed the first reply by half as much again (npm run bench -- 60).
 *
 * Reviews run to the end on their worker, so a few long ones could hold every worker while others wait up
 * to their deadline: a spare worker then starts, takes the others and runs none of them longer than a
 * set time; one that runs longer goes back to wait for a regular worker (spare.ts).
 *
 * A review costs at most its worker: when it runs past its deadline plus the grace period, or its client
 * went away and it did not stop within the grace period, the worker is terminated; when it exhausts the
 * worker's heap (resourceLimits), the worker dies. Either way a new worker takes the slot and the review is
 * answered by the failure policy of the policy that was running and those after it (stopped.ts), as is a
 * review that waited past its deadline; that answer parses the body on the main thread, so a large one is
 * answered so only within a budget of main-thread time, else 503 (stopped-reviews.ts). One whose worker
 * ran out of heap in an Ignore policy is evaluated again without that policy instead, and one whose worker
 * ran out of heap reading it after other reviews is evaluated again as it is, within an allowance
 * (evaluate-again.ts): it may cost a second worker.
 */
import type { Worker } from 'node:worker_threads';
import type { PolicySet } from '../../policyset/index.js';
import { bodySize, CallbackGauge, clusterOfSet, Counter, failure, inProcessReviewer, type Logger, type Registry, type ReviewAnswer, type Reviewer, type ReviewJob } from '../../server/index.js';
import { encodeInputs, encodeInputsInSlices } from './encoded-set.js';
import { REVOKED, SLOT, type FromWorker, type ReviewMessage, type ToWorker } from './protocol.js';
import { unpackAnswers } from './wire.js';
import { answerStoppedReview } from '../../engine/index.js';
import { EVALUATE_AGAIN, EvaluateAgain, type EvaluateAgainRate } from './evaluate-again.js';
import type { AnswerStopped, StopReason } from './stopped.js';
import { STOPPED_BUDGET, type StoppedBudgetTiming } from './stopped-budget.js';
import { cancelledAnswer, StoppedReviews } from './stopped-reviews.js';
import type { WorkerEntry } from './entry.js';
import { newReviewWorker, takeEarlyWorker } from './early.js';
import { DEFAULT_WORKER_NICE } from './variables.js';
import { WaitingReviews } from './queue.js';
import { setsServed, SPARE_TIMING, SpareLeash, SpareTimers, type SpareTiming } from './spare.js';

export interface PoolOptions {
  /** Worker threads (at least 1). */
  workers: number;
  /** resourceLimits.maxOldGenerationSizeMb of each worker. */
  heapMb: number;
  /** Nice levels the workers run below the main thread (default DEFAULT_WORKER_NICE; variables.ts). */
  nice?: number;
  /** Time past a review's deadline, or past its client leaving, before its worker is replaced. */
  graceMs: number;
  /** Reviews that may wait for a free worker; more are answered 503. */
  queueLimit: number;
  /** The worker script (see entry.ts). */
  entry: WorkerEntry;
  /** Answers a stopped review (default: the pool's own, see stopped.ts; the engine's where available). */
  answerStopped?: AnswerStopped;
  logger?: Logger;
  /** Milliseconds after the start when the workers after the first start at the latest (default 2000). */
  staggerMs?: number;
  /** When the spare worker starts and stops (spare.ts; default SPARE_TIMING). */
  spare?: SpareTiming;
  /** How much of the main thread answering stopped reviews may take (stopped-budget.ts; default STOPPED_BUDGET). */
  stoppedBudget?: StoppedBudgetTiming;
  /** How many reviews whose worker ran out of heap may be evaluated again (evaluate-again.ts; default EVALUATE_AGAIN). */
  evaluateAgain?: EvaluateAgainRate;
  /** Encodes a set version's documents for the workers (default encodeInputs, encoded-set.ts; a test counts its calls). */
  encodeSet?: (inputs: Job['inputs']) => SharedArrayBuffer;
}

/** Why a worker was replaced (the `reason` label of amender_workers_replaced_total). */
export type ReplaceReason = 'deadline' | 'heap' | 'cancelled' | 'crash';

/** A review waiting for, or held by, a worker. */
interface Job {
  id: number;
  job: ReviewJob;
  setName: string;
  set: PolicySet;
  generation: number;
  inputs: NonNullable<ReviewJob['state']['inputs']>;
  /** performance.now() when the review's deadline passes (counted from its arrival, queue included). */
  deadlineAt: number;
  /** Its body's length (queue.ts bounds a batch's). */
  bodySize: number;
  resolve: (answer: ReviewAnswer) => void;
  /** Answered already (the client left, or it waited past its deadline); its worker may still be busy. */
  settled: boolean;
  stopListening: () => void;
  /** The grace timers of a cancelled review its worker may still be running. */
  timers: ReturnType<typeof setTimeout>[];
  /** It ran the longest the spare runs a review: it waits for a regular worker (offSpare). */
  offSpare?: true;
  /** Stopped, its large body waiting to be answered (stopped-reviews.ts): what its worker says of it is dropped. */
  stopping?: { ordinal: number; reason: StopReason };
  /** Set when it is evaluated again (evaluateAgain): the policies to leave out, none when it goes as it is. */
  outOfHeap?: number[];
}

/** Reviews handed to a worker in one message, answered in order. */
interface Batch {
  jobs: Job[];
  /** performance.now() when it was sent. */
  sentAt: number;
  /** On the spare: a review of it was moved off (moveOffSpare). */
  movedOff?: true;
  /** Where SLOT.CLAIMED stood when the pool took the reviews not started back (-1: none had started). */
  revokedAt?: number;
  /** The deadline watch and the take-back timer. */
  timers: ReturnType<typeof setTimeout>[];
}

interface Slot {
  worker: Worker;
  shared: Int32Array;
  /** Set versions this worker holds, by set name (mirrors the worker's own keep rule). */
  versions: Map<string, number[]>;
  batch?: Batch;
  online: boolean;
  /** It has answered a review: what fills its heap may be from reviews before (evaluateAgain). */
  used?: true;
  /** Stopped by the pool, or dead: its 'exit' is expected, it takes no review. */
  retired: boolean;
  /** Started beyond `workers` while every worker is busy with other sets, or held by long reviews (spare.ts). */
  spare: boolean;
  /** Set versions sent to it (SLOT.BUILT reaches this once it has built them all). */
  sent: number;
  /** Large sets being encoded for it a run at a time (encodeForReplacement): it takes no review until they are sent. */
  awaiting: number;
}

/** Alive, its script loaded and every set version sent to it built. */
function serves(slot: Slot): boolean {
  return !slot.retired && Atomics.load(slot.shared, SLOT.LOADED) === 1 && Atomics.load(slot.shared, SLOT.BUILT) >= slot.sent;
}

/** The newest version of a set, sent to every worker as soon as it is seen (and to new workers). */
interface Latest {
  generation: number;
  inputs: Job['inputs'];
  /** Its documents have gone to a worker as a clone: the next worker gets them encoded. */
  sent?: true;
  /** Its documents encoded once for every worker, until they all hold the version (dropEncodingsSent). */
  encoded?: SharedArrayBuffer;
  /** Encoded ahead (ENCODE_AHEAD_BYTES or more): a replacement's copy is encoded in slices too. */
  large?: true;
  /** That sliced encoding, under way for the replacements waiting for it. */
  encoding?: Promise<void>;
}

const KEEP_VERSIONS = 2;
/**
 * Documents holding this much text or more are encoded for the workers before their set is applied
 * (encodeAhead); less is encoded at the hand-over in a few milliseconds, and the first worker keeps its clone.
 */
const ENCODE_AHEAD_BYTES = 1 << 20;
/**
 * The most reviews one batch holds. Each message wakes a thread, and the main thread, which carries every
 * request, pays for the message it sends and the one it gets back: under 50 connections the batches were
 * always full at 8 (7.98 reviews each), and 16 served 7 % more reviews a second with the same p99 (11,400
 * → 12,300 a second, Node 24, three alternations; 32: 12,500–12,900, within the noise of 16). A slow
 * review holds the others of its batch at most STEAL_AFTER_MS, whatever the size.
 */
const MAX_BATCH = 16;
/**
 * The most body bytes one batch holds, unless its one review is larger: a review worker holds its batch's
 * bodies, outside its heap limit, until the batch ends (and a worker taking back reviews not started holds
 * them again), so eight reviews of 6 MiB in a batch made eight copies where one was needed.
 */
const MAX_BATCH_BODY_SIZE = 1 << 20;
/** A batch still running this long after it was sent gives back the reviews it has not started. */
const STEAL_AFTER_MS = 10;
/** When the workers after the first start at the latest, by default (see the class comment). */
const STAGGER_MS = 2000;
/** A worker that dies before it is even online is restarted after this (a missing or broken bundle). */
const RESTART_DELAY_MS = 1000;
/**
 * The longest such a restart waits: the delay doubles with each one in a row (a broken bundle, a set its
 * heap cannot build), so a worker that can never serve is not booted again every second for ever, each
 * boot taking a core from the thread that carries every request.
 */
const MAX_RESTART_DELAY_MS = 30_000;
/**
 * Workers lost in a row before answering a review, past which the pool says it cannot serve (/readyz 503):
 * one may be a chance death; two mean every new one will do the same (a broken bundle, a set too big).
 */
const UNAVAILABLE_AFTER_FAILED_STARTS = 2;

export class ReviewPool {
  private readonly slots: Slot[] = [];
  /** A review that waited past its deadline is answered by failure policy, unrun. */
  private readonly answerExpired = (entry: Job): void => this.stopped.answer(entry, -1, 'deadline');
  private readonly queue = new WaitingReviews<Job>(this.answerExpired);
  /** Reviews the spare ran as long as it runs one, waiting for a regular worker (served before `queue`). */
  private readonly offSpare = new WaitingReviews<Job>(this.answerExpired);
  private readonly logger: Logger;
  private nextId = 1;
  private closed = false;
  /** A flush of the queue is due at the end of this turn of the event loop (schedule). */
  private flushPending = false;
  /** Pending: the queue is looked at again once every worker is held, for the idle spare (lookAgainWhenHeld). */
  private heldCheck: ReturnType<typeof setTimeout> | undefined;
  /** Workers not started yet (see grow). */
  private unstarted: number;
  /** The newest version of each set, with its documents encoded once for every worker (encoded-set.ts). */
  private readonly latest = new Map<string, Latest>();
  /** Encodings made before their set was applied (encodeAhead), until a version of those documents is sent. */
  private readonly ahead = new WeakMap<Job['inputs'], SharedArrayBuffer>();
  private readonly replaced = new Counter('amender_workers_replaced_total', 'Review workers terminated or lost and replaced, by reason (deadline, heap, cancelled, crash).');
  private readonly batches = new Counter('amender_review_batches_total', 'Batches of reviews handed to the review workers (one message each); reviews taken back from a batch running long are counted again in the batch that takes them.');
  private readonly countBatch = this.batches.child();
  private readonly spareTiming: SpareTiming;
  private readonly spareTimers: SpareTimers;
  private readonly spareLeash: SpareLeash;
  /** performance.now() before which no spare starts (after one that died before it came online). */
  private noSpareUntil = 0;
  /** Workers replaced in a row that never answered a review (see MAX_RESTART_DELAY_MS); a review answered resets it. */
  private failedStarts = 0;
  /** What the last worker lost before answering said as it failed (its error's first line). */
  private lastStartError: string | undefined;
  private readonly sparesStarted = new Counter('amender_workers_spare_started_total', 'Spare review workers started because reviews waited while every worker was busy with other policy sets or held by a long review.');
  private readonly countSpare = this.sparesStarted.child();
  private readonly movedOffSpare = new Counter('amender_reviews_moved_off_spare_total', 'Reviews the spare worker ran as long as it runs one, moved back to wait for a regular worker.');
  private readonly countMovedOffSpare = this.movedOffSpare.child();
  /** Answers reviews whose evaluation did not end by failure policy (stopped-reviews.ts). */
  private readonly stopped: StoppedReviews<Job>;
  private readonly again: EvaluateAgain;
  private readonly shed = new Counter('amender_review_queue_shed_total', 'Reviews taken out of a full review queue, answered 503, to make room for a review of a policy set with fewer waiting (by cluster; no label: the default set).');

  constructor(private readonly options: PoolOptions) {
    if (!Number.isSafeInteger(options.workers) || options.workers < 1) throw new RangeError(`a review pool needs at least one worker, got ${options.workers}`);
    this.logger = options.logger ?? (() => {});
    this.spareTiming = options.spare ?? SPARE_TIMING;
    this.spareTimers = new SpareTimers(this.spareTiming);
    this.spareLeash = new SpareLeash(this.spareTiming.heldMs);
    this.stopped = new StoppedReviews<Job>((entry, answer) => this.finish(entry, answer), {
      answer: options.answerStopped ?? answerStoppedReview,
      budget: options.stoppedBudget ?? STOPPED_BUDGET,
    });
    this.again = new EvaluateAgain(options.evaluateAgain ?? EVALUATE_AGAIN);
    this.slots.push(this.spawn());
    this.unstarted = options.workers - 1;
    if (this.unstarted > 0) setTimeout(() => this.grow(), options.staggerMs ?? STAGGER_MS).unref();
  }

  /** Starts the workers not started yet; each takes a review waiting, if any. */
  private grow(): void {
    for (; this.unstarted > 0 && !this.closed; this.unstarted--) {
      this.slots.push(this.spawn());
      this.schedule();
    }
    this.dropEncodingsSent();
  }

  /** For `createApp({ reviewer })`. */
  readonly reviewer: Reviewer = (job) => this.review(job);

  /**
   * For `createApp({ unavailable })`: why no review can be evaluated, while the workers started since the
   * last answer have all died before giving one. Readiness then turns 503, so a release whose workers
   * cannot start is never routed to (its rollout stops, the old pods keep serving).
   */
  unavailable(): string | undefined {
    if (this.closed || this.failedStarts < UNAVAILABLE_AFTER_FAILED_STARTS) return undefined;
    // A worker started since, alive, that loaded and built every set version it was sent: an idle pool
    // (readiness 503 routes no review to it) would otherwise wait for an answer that cannot come.
    if (this.slots.some(serves)) {
      this.failedStarts = 0;
      this.lastStartError = undefined;
      return undefined;
    }
    const last = this.lastStartError === undefined ? '' : ` (the last said: ${this.lastStartError})`;
    return `the review workers cannot start: ${this.failedStarts} in a row stopped before answering a review${last}`;
  }

  /** amender_workers, amender_workers_busy, amender_review_queue_length, amender_workers_replaced_total, amender_review_batches_total, amender_review_queue_shed_total, amender_workers_spare_started_total, amender_reviews_moved_off_spare_total, amender_reviews_stopped_total, amender_reviews_stopped_seconds_total, amender_reviews_evaluated_again_total. */
  registerMetrics(registry: Registry): void {
    registry.register(new CallbackGauge('amender_workers', 'Review worker threads running.', () => [[{}, this.slots.filter((s) => !s.retired).length]]));
    registry.register(new CallbackGauge('amender_workers_busy', 'Review worker threads evaluating a review.', () => [[{}, this.slots.filter((s) => s.batch && !s.retired).length]]));
    registry.register(new CallbackGauge('amender_review_queue_length', 'Reviews waiting for a free worker.', () => [[{}, this.queue.length + this.offSpare.length]]));
    registry.register(this.replaced);
    registry.register(this.batches);
    registry.register(this.shed);
    registry.register(this.sparesStarted);
    registry.register(this.movedOffSpare);
    this.stopped.register(registry);
    this.again.register(registry);
  }

  /** Terminates every worker; reviews waiting or in progress are answered 503. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.spareTimers.close();
    clearTimeout(this.heldCheck);
    const closing = failure(503, 'unavailable', 'the server is shutting down');
    for (const entry of [...this.queue.clear(), ...this.offSpare.clear(), ...this.stopped.drain()]) this.finish(entry, closing);
    await Promise.all(
      this.slots.map((slot) => {
        slot.retired = true;
        for (const entry of slot.batch?.jobs ?? []) this.finish(entry, closing);
        return slot.worker.terminate();
      }),
    );
  }

  /**
   * Has every worker build this version of a set now, e.g. as soon as it has loaded, so that the first
   * review for it does not wait for the build (a new version a review brings is sent the same way).
   */
  prepare(setName: string, state: ReviewJob['state']): void {
    const { inputs, generation } = state;
    if (inputs === undefined || generation === undefined || this.closed) return;
    const known = this.latest.get(setName);
    if (known && generation <= known.generation) return;
    this.latest.set(setName, { generation, inputs });
    // The spare gets a set with its first review of it (dispatch).
    for (const slot of this.slots) if (!slot.retired && !slot.spare) this.sendVersion(slot, setName, generation, inputs);
    this.dropEncodingsSent();
  }

  /**
   * Encodes a new set's documents for the workers before the set is applied (RefresherOptions.beforeApply),
   * a run of documents at a time between turns of the event loop, when they held ENCODE_AHEAD_BYTES or
   * more as text (true then); every worker, the first too, then gets that encoding, which prepare() adopts
   * and drops once every worker holds the version (call it once the set is applied, or the encoding is held
   * as long as the documents are, until a review brings the version). Encoded at the hand-over instead
   * (documents()), a set of 40 CRDs of 590 KB held the main thread 0.5-1.2 s at the end of its load, the
   * first serialization of fresh documents being the slow one (encoded-set.ts).
   */
  async encodeAhead(inputs: Job['inputs'], { bytes, signal }: { bytes: number; signal: AbortSignal }): Promise<boolean> {
    if (bytes < ENCODE_AHEAD_BYTES || this.closed) return false;
    const pause = (): Promise<void> =>
      new Promise((resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        else setImmediate(resolve);
      });
    this.ahead.set(inputs, await encodeInputsInSlices(inputs, pause));
    return true;
  }

  /**
   * Once every worker there will be holds the newest versions, their encodings go: a worker started
   * later (a replacement, a spare) has its own made, rather than each set being held twice for good.
   */
  private dropEncodingsSent(): void {
    if (this.unstarted > 0) return;
    const regular = this.slots.filter((slot) => !slot.retired && !slot.spare);
    for (const [name, latest] of this.latest) {
      if (latest.encoded && regular.every((slot) => slot.versions.get(name)?.includes(latest.generation))) latest.encoded = undefined;
    }
  }

  private review(job: ReviewJob): Promise<ReviewAnswer> {
    const { set, inputs, generation } = job.state;
    // Without a set (not loaded yet) the answer is a 503 after validation; a set not made by a refresher
    // (no inputs to rebuild it from) can only be evaluated here.
    if (!set || inputs === undefined || generation === undefined || this.closed) return inProcessReviewer(job);
    if (job.signal.aborted) return Promise.resolve(cancelledAnswer());
    // A new version: every worker builds it now, before a review for it reaches that worker.
    this.prepare(job.setName, job.state);
    let idle = this.idleSlots().length;
    if (this.unstarted > 0 && this.queue.length >= idle) {
      this.grow();
      idle = this.idleSlots().length;
    }
    // What the free workers take at the end of this turn does not count against the limit.
    if (this.queue.length >= this.options.queueLimit + idle * MAX_BATCH && !this.makeRoomFor(job.setName)) {
      return Promise.resolve(failure(503, 'unavailable', `all ${this.slots.length} review workers are busy and ${this.queue.length} reviews are waiting`));
    }
    return new Promise<ReviewAnswer>((resolve) => {
      const onAbort = () => this.abandon(entry);
      const entry: Job = {
        id: this.nextId++,
        job,
        setName: job.setName,
        set,
        generation,
        inputs,
        deadlineAt: performance.now() + job.limits.reviewDeadlineMs,
        bodySize: bodySize(job.body),
        resolve,
        settled: false,
        stopListening: () => job.signal.removeEventListener('abort', onAbort),
        timers: [],
      };
      job.signal.addEventListener('abort', onAbort, { once: true });
      this.queue.add([entry]);
      this.schedule();
    });
  }

  /**
   * The queue is full: a review of another policy set with more waiting than `setName` leaves it, answered
   * 503, so that one set's flood never holds every place (queue.ts). False when `setName` has the most.
   */
  private makeRoomFor(setName: string): boolean {
    const shed = this.queue.shedFor(setName);
    if (!shed) return false;
    const waiting = this.queue.waiting(shed.setName) + 1;
    this.shed.inc(setLabels(shed.setName));
    this.finish(shed, failure(503, 'unavailable', `the review queue is full and this policy set had the most reviews in it (${waiting} of ${this.queue.length + 1}): its newest made room for another set's review`));
    return true;
  }

  /**
   * The workers without a batch. The spare is last (it takes only what the others leave): it starts once
   * every worker has (watchForSpare), after them in `slots`, and a replacement takes its worker's place.
   */
  private idleSlots(): Slot[] {
    return this.slots.filter((s) => !s.batch && !s.retired && s.awaiting === 0);
  }

  /**
   * Hands the reviews waiting to the free workers at the end of this turn of the event loop, when every
   * review that arrived in it (and every answer) has been read: reviews that arrive together cross together.
   */
  private schedule(): void {
    if (this.flushPending || this.queue.length + this.offSpare.length === 0) return;
    this.flushPending = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.flushPending = false;
    if (this.closed) return;
    const idle = this.idleSlots();
    for (let i = 0; i < idle.length && this.queue.length + this.offSpare.length > 0; i++) {
      // Each free worker takes its share, so that the reviews of a burst run side by side. A review back
      // from the spare goes alone, first; the spare takes none of them, and none of the sets the other
      // workers are serving unless each of them is held by a long review.
      const slot = idle[i];
      const share = Math.min(MAX_BATCH, Math.ceil(this.queue.length / (idle.length - i)));
      let jobs: Job[];
      if (slot.spare) jobs = this.queue.take(share, this.everyWorkerHeld(performance.now()) ? undefined : this.setsInProgress(), MAX_BATCH_BODY_SIZE);
      else jobs = this.offSpare.length > 0 ? this.offSpare.take(1) : this.queue.take(share, undefined, MAX_BATCH_BODY_SIZE);
      if (jobs.length === 0) continue;
      // The spare first gets the large sets they need, encoded in slices; they wait, first in line, meanwhile.
      if (slot.spare && this.encodeForSpare(slot, jobs)) this.queue.add(jobs, true);
      else this.dispatch(slot, jobs);
    }
    if (this.queue.length > 0) this.watchForSpare();
  };

  /**
   * Reviews wait after the free workers took theirs: the spare starts if they still wait `afterMs` later for
   * workers busy with other sets, or once every worker is held by a long review (spare.ts).
   */
  private watchForSpare(): void {
    if (this.closed || this.unstarted > 0) return;
    if (this.hasSpare()) return this.lookAgainWhenHeld();
    if (this.spareTimers.startPending) return;
    const now = performance.now();
    let lastSent = 0;
    for (const slot of this.slots) {
      if (!slot.batch || slot.retired) return;
      lastSent = Math.max(lastSent, slot.batch.sentAt);
    }
    const { afterMs, heldMs } = this.spareTiming;
    // With one set, waiting reviews are of a set the workers serve: only long reviews can call for the spare.
    const delayMs = this.latest.size > 1 ? afterMs : Math.max(afterMs, lastSent + heldMs - now);
    this.spareTimers.armStart(Math.max(delayMs, this.noSpareUntil - now), () => {
      if (this.spareNeeded()) this.startSpare();
      else if (this.queue.length > 0) this.watchForSpare();
    });
  }

  /**
   * Reviews wait that the idle spare may not take yet: of sets the workers serve, whose workers are not
   * all held yet. The queue is looked at again when they will be (as it would be if the spare were not
   * running and had to start then): nothing else would, and the reviews would wait for a regular worker
   * however long its review runs.
   */
  private lookAgainWhenHeld(): void {
    if (this.heldCheck !== undefined || !this.slots.some((s) => s.spare && !s.retired && !s.batch)) return;
    let heldAt = 0;
    for (const slot of this.regularSlots()) {
      if (slot.retired) continue;
      // A free worker takes them at the next flush.
      if (!slot.batch) return;
      heldAt = Math.max(heldAt, slot.batch.sentAt + this.spareTiming.heldMs);
    }
    // A millisecond past it: the timer's clock is coarser than performance.now().
    this.heldCheck = setTimeout(() => {
      this.heldCheck = undefined;
      this.schedule();
    }, Math.max(1, heldAt - performance.now() + 1));
    this.heldCheck.unref();
  }

  /** Whether reviews wait for workers busy with other sets, or held by long reviews (see watchForSpare). */
  private spareNeeded(): boolean {
    if (this.closed || this.queue.length === 0 || this.hasSpare() || performance.now() < this.noSpareUntil) return false;
    const served = setsServed(this.regularSlots().map((s) => this.setInProgress(s)));
    if (served === undefined) return false;
    return this.everyWorkerHeld(performance.now()) || (this.latest.size > 1 && this.queue.waitingBesides(served));
  }

  /**
   * Whether every regular worker has been on its batch for `heldMs` (a batch running long keeps only the
   * review it is on). One building a set version is not held by a review: a spare would build it too.
   */
  private everyWorkerHeld(now: number): boolean {
    const heldSince = now - this.spareTiming.heldMs;
    for (const slot of this.slots) {
      if (slot.spare || slot.retired) continue;
      if (!slot.batch || slot.batch.sentAt > heldSince || Atomics.load(slot.shared, SLOT.BUILDING) === 1) return false;
    }
    return true;
  }

  /** The sets of the reviews in progress on the workers (the spare aside). */
  private setsInProgress(): Set<string> {
    const sets = new Set<string>();
    for (const slot of this.regularSlots()) {
      const setName = this.setInProgress(slot);
      if (setName !== undefined) sets.add(setName);
    }
    return sets;
  }

  /** The set of the review a worker is on; undefined when it has none. */
  private setInProgress(slot: Slot): string | undefined {
    return slot.batch && !slot.retired ? this.current(slot, slot.batch).entry?.setName : undefined;
  }

  private regularSlots(): Slot[] {
    return this.slots.filter((s) => !s.spare);
  }

  private hasSpare(): boolean {
    return this.slots.some((s) => s.spare);
  }

  private startSpare(): void {
    if (this.hasSpare()) return;
    const busyWith = [...this.setsInProgress()];
    const heldByLongReviews = this.everyWorkerHeld(performance.now());
    const slot = this.spawn(true);
    this.slots.push(slot);
    this.countSpare.inc();
    this.logger({ level: 'warn', msg: 'spare review worker started', busyWith, heldByLongReviews, workers: this.slots.length });
    this.spareTimers.armStop(() => this.stopSpare(slot));
    this.schedule();
  }

  /** The spare has had no review for a while (spare.ts). */
  private stopSpare(slot: Slot): void {
    // One waiting for a set's encoding takes its reviews once it is sent (encodeForSpare).
    if (slot.batch || slot.retired || slot.awaiting > 0) return;
    slot.retired = true;
    this.slots.splice(this.slots.indexOf(slot), 1);
    void slot.worker.terminate();
    this.logger({ level: 'info', msg: 'spare review worker stopped', workers: this.slots.length });
  }

  /** Sends a batch of reviews to a free worker. */
  private dispatch(slot: Slot, jobs: Job[]): void {
    const now = performance.now();
    const reviews: ReviewMessage[] = [];
    let firstDue = Infinity;
    for (const entry of jobs) {
      this.sendVersion(slot, entry.setName, entry.generation, entry.inputs);
      reviews.push({
        id: entry.id,
        setName: entry.setName,
        generation: entry.generation,
        body: entry.job.body,
        maxJsonDepth: entry.job.limits.maxJsonDepth,
        deadlineMs: Math.max(1, Math.floor(entry.deadlineAt - now)),
        maxValueBytes: entry.job.limits.maxValueBytes,
        ...(entry.outOfHeap ? { outOfHeap: entry.outOfHeap } : {}),
      });
      firstDue = Math.min(firstDue, entry.deadlineAt);
    }
    const batch: Batch = { jobs, sentAt: now, timers: [] };
    slot.batch = batch;
    if (slot.spare) {
      this.spareTimers.keep();
      this.armLeash(slot, batch);
    }
    Atomics.store(slot.shared, SLOT.PROGRESS, -1);
    Atomics.store(slot.shared, SLOT.CLAIMED, -1);
    slot.worker.postMessage({ type: 'reviews', reviews } satisfies ToWorker);
    this.countBatch.inc();
    // The engine stops a review at its deadline; past the grace period the worker is presumed stuck.
    batch.timers.push(setTimeout(() => this.watch(slot, batch), Math.max(1, firstDue - now) + this.options.graceMs));
    if (jobs.length > 1) batch.timers.push(setTimeout(() => this.takeBack(slot, batch), STEAL_AFTER_MS));
  }

  /** The review a worker is on (or about to start): the one it claimed last, the first before it claims any. */
  private current(slot: Slot, batch: Batch): { entry: Job | undefined; index: number } {
    const claimed = Atomics.load(slot.shared, SLOT.CLAIMED);
    const index = Math.max(0, claimed === REVOKED ? (batch.revokedAt ?? -1) : claimed);
    return { entry: batch.jobs[index], index };
  }

  /**
   * The deadline watch of a batch: its worker's review past its deadline and the grace period. A worker
   * building a set version is not cut short (the build is bounded, the main thread made the same one, and
   * its replacement would have to start over): the review is answered now and the worker told to skip it.
   * Otherwise the worker is replaced.
   */
  private watch(slot: Slot, batch: Batch): void {
    if (slot.batch !== batch || slot.retired) return;
    const { entry } = this.current(slot, batch);
    if (!entry) return;
    const due = entry.deadlineAt + this.options.graceMs - performance.now();
    if (due > 0) {
      batch.timers.push(setTimeout(() => this.watch(slot, batch), due));
      return;
    }
    if (Atomics.load(slot.shared, SLOT.BUILDING) === 1) {
      this.stopped.answer(entry, -1, 'deadline');
      Atomics.store(slot.shared, SLOT.CANCEL, entry.id);
      batch.timers.push(setTimeout(() => this.watch(slot, batch), this.options.graceMs));
      return;
    }
    this.replace(slot, 'deadline');
  }

  /** A batch running long gives the reviews it has not started back to the queue, for the workers that are free. */
  private takeBack(slot: Slot, batch: Batch): void {
    if (slot.batch !== batch || slot.retired || batch.revokedAt !== undefined) return;
    batch.revokedAt = Atomics.exchange(slot.shared, SLOT.CLAIMED, REVOKED);
    const notStarted = batch.jobs.splice(batch.revokedAt + 1);
    if (notStarted.length === 0) return;
    this.waitAgain(notStarted);
  }

  /** Reviews taken back from a worker wait again, first in their lines. */
  private waitAgain(all: Job[]): void {
    // One stopped, waiting for its answer, never runs again.
    const entries = all.filter((entry) => !entry.stopping);
    this.queue.add(entries.filter((entry) => !entry.offSpare), true);
    this.offSpare.add(entries.filter((entry) => entry.offSpare), true);
    this.schedule();
  }

  /**
   * The spare has run its review as long as it runs one (SpareLeash): a review of a set the regular workers
   * are serving goes back to wait for one of them, and the spare is asked to stop it (replaced if it does
   * not within the grace period) and take others.
   */
  private moveOffSpare(slot: Slot, batch: Batch): void {
    if (slot.batch !== batch || slot.retired) return;
    // Building a set version is not the review's time (see watch): it gets its full time after the build.
    if (Atomics.load(slot.shared, SLOT.BUILDING) === 1) return this.armLeash(slot, batch);
    this.takeBack(slot, batch);
    const { entry, index } = this.current(slot, batch);
    if (!entry || entry.settled || entry.stopping) return;
    // A review of a set no regular worker is serving holds no one up that it should not: it runs on (0004).
    if (!this.setsInProgress().has(entry.setName)) return this.armLeash(slot, batch);
    // A stand-in, answered already, takes its place in the batch: what the spare still says of it is dropped.
    const standIn: Job = { ...entry, settled: true, timers: [] };
    batch.jobs[index] = standIn;
    batch.movedOff = true;
    entry.offSpare = true;
    this.countMovedOffSpare.inc();
    this.logger({ level: 'warn', msg: 'review moved off the spare worker', policySet: entry.setName, afterMs: this.spareLeash.currentMs });
    this.spareLeash.movedOff();
    this.waitAgain([entry]);
    Atomics.store(slot.shared, SLOT.CANCEL, entry.id);
    batch.timers.push(
      setTimeout(() => {
        if (slot.batch === batch && this.current(slot, batch).entry === standIn) this.replace(slot, 'cancelled');
      }, this.options.graceMs),
    );
  }

  /** The spare's batch is looked at again once the spare has run it as long as it runs a review (SpareLeash). */
  private armLeash(slot: Slot, batch: Batch): void {
    batch.timers.push(setTimeout(() => this.moveOffSpare(slot, batch), this.spareLeash.currentMs));
  }

  /**
   * A set version's documents as a worker gets them: cloned by postMessage for the first worker the newest
   * version of a set goes to (and for an older version a review still needs), encoded once and shared for
   * the others (encoded-set.ts); the encoding made ahead (encodeAhead) for every worker when there is one.
   */
  private documents(name: string, generation: number, inputs: Job['inputs']): { inputs: Job['inputs'] } | { encoded: SharedArrayBuffer } {
    const latest = this.latest.get(name);
    if (latest?.generation !== generation || latest.inputs !== inputs) return { inputs };
    const ahead = this.ahead.get(inputs);
    if (ahead) {
      this.ahead.delete(inputs);
      latest.encoded ??= ahead;
      latest.large = true;
    }
    if (!latest.sent && !latest.encoded) {
      latest.sent = true;
      return { inputs };
    }
    return { encoded: (latest.encoded ??= (this.options.encodeSet ?? encodeInputs)(inputs)) };
  }

  /**
   * A large set in force, its encoding dropped once every worker held it, goes to a worker started later
   * (a replacement after a crash or an out-of-heap) encoded a run of documents at a time, as at its load
   * (encodeAhead), instead of at once in the turn the worker is started: a set of 24 MB held the main
   * thread 0.1-0.9 s there, every probe and review waiting. The worker boots meanwhile and takes no review
   * until the set is sent (a review would bring the set with it, encoded at once). Replacements started
   * together share one encoding; it is dropped again once every worker holds the version.
   */
  private encodeForReplacement(slot: Slot, name: string, latest: Latest): void {
    slot.awaiting++;
    latest.encoding ??= encodeInputsInSlices(latest.inputs, () => new Promise((resolve, reject) => (this.closed ? reject(new Error('the pool is closed')) : setImmediate(resolve))))
      .then(
        (encoded) => void (latest.encoded ??= encoded),
        // Sent as before, encoded at once (documents()).
        () => {},
      )
      .finally(() => (latest.encoding = undefined));
    void latest.encoding.then(() => {
      slot.awaiting--;
      if (slot.retired || this.closed) return;
      // A newer version has gone to it meanwhile (prepare): this one is not sent.
      if (this.latest.get(name) === latest) this.sendVersion(slot, name, latest.generation, latest.inputs);
      if (slot.awaiting > 0) return;
      this.dropEncodingsSent();
      // A spare stops when idle from now on, if no review is left for it (stopSpare waited for this).
      if (slot.spare) this.spareTimers.armStop(() => this.stopSpare(slot));
      this.schedule();
    });
  }

  /**
   * The spare gets a set with its first review of it (dispatch), so a large set in force, its encoding
   * dropped, was cloned or encoded at once as the spare took the review, at the moment the workers were
   * all busy: encoded in slices for it first instead (encodeForReplacement). True when it waits for one.
   */
  private encodeForSpare(slot: Slot, jobs: readonly Job[]): boolean {
    const names = new Set<string>();
    for (const entry of jobs) {
      const latest = this.latest.get(entry.setName);
      if (!latest?.large || latest.encoded || latest.generation !== entry.generation || latest.inputs !== entry.inputs) continue;
      if (names.has(entry.setName) || slot.versions.get(entry.setName)?.includes(entry.generation)) continue;
      names.add(entry.setName);
      this.encodeForReplacement(slot, entry.setName, latest);
    }
    return names.size > 0;
  }

  /** Posts a set version to the worker unless it holds it. */
  private sendVersion(slot: Slot, name: string, generation: number, inputs: Job['inputs']): void {
    const held = slot.versions.get(name) ?? [];
    if (held.includes(generation)) return;
    slot.worker.postMessage({ type: 'set', setName: name, generation, ...this.documents(name, generation, inputs) } satisfies ToWorker);
    slot.sent++;
    // The worker keeps the newest versions and never drops the one just sent: the same rule here.
    const kept = [...held].sort((a, b) => a - b);
    while (kept.length >= KEEP_VERSIONS) kept.shift();
    kept.push(generation);
    slot.versions.set(name, kept);
  }

  /** The client went away: answer now, ask the worker to stop, replace it if it does not in time. */
  private abandon(entry: Job): void {
    if (!this.queue.remove(entry)) this.offSpare.remove(entry);
    this.stopped.abandoned(entry);
    this.finish(entry, cancelledAnswer());
    const slot = this.slots.find((s) => !s.retired && s.batch?.jobs.includes(entry));
    if (!slot) return;
    // Read before it starts (it is then skipped) or while it runs (the engine stops).
    Atomics.store(slot.shared, SLOT.CANCEL, entry.id);
    const check = () => {
      const batch = slot.batch;
      if (!batch || slot.retired || this.current(slot, batch).entry !== entry) return;
      // A set being built finishes (see watch); the worker then skips the cancelled review.
      if (Atomics.load(slot.shared, SLOT.BUILDING) === 1) entry.timers.push(setTimeout(check, this.options.graceMs));
      else this.replace(slot, 'cancelled');
    };
    entry.timers.push(setTimeout(check, this.options.graceMs));
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    const batch = slot.batch;
    if (slot.retired || !batch) return;
    if (message.answers) {
      this.failedStarts = 0;
      this.lastStartError = undefined;
      for (const { id, answer } of unpackAnswers(message.answers)) {
        const entry = batch.jobs.find((j) => j.id === id);
        if (entry && !entry.stopping) this.finish(entry, answer);
      }
      slot.used = true;
    }
    if (!message.done) return;
    // The worker takes the reviews waiting now, before the replies of the answers just settled are
    // written (their promises' continuations run after this returns): left to the end of the event
    // loop's turn, it idled while they were. Suite 40's server: +7 % throughput, less CPU per request.
    this.release(slot, true);
    // Not before the reply is written: constructing a Worker holds this thread ~10 ms, which the first
    // reply of a cold start waited for (npm run bench -- 60).
    if (this.unstarted > 0) setImmediate(() => this.grow());
  }

  /**
   * The worker is free again (or a fresh one took the slot): it takes its share of the reviews waiting,
   * at the end of this turn of the event loop, or at once (`now`).
   */
  private release(slot: Slot, now = false): void {
    const batch = slot.batch;
    slot.batch = undefined;
    if (batch) stopTimers(batch);
    if (slot.spare) {
      if (batch && !batch.movedOff) this.spareLeash.ended();
      this.spareTimers.armStop(() => this.stopSpare(slot));
    }
    if (now && this.queue.length + this.offSpare.length > 0) this.flush();
    else this.schedule();
  }

  /**
   * Terminates (or buries) a worker and starts a replacement. Its current review is answered by failure
   * policy, or waits again to be evaluated without the Ignore policy that ran the worker out of heap
   * (evaluateAgain); the others of its batch (not started, or answered in the worker but not yet sent)
   * wait again.
   */
  private replace(slot: Slot, reason: ReplaceReason): void {
    if (slot.retired || this.closed) return;
    slot.retired = true;
    void slot.worker.terminate();
    this.replaced.inc({ reason });
    const batch = slot.batch;
    slot.batch = undefined;
    const { entry, index } = batch ? this.current(slot, batch) : { entry: undefined, index: 0 };
    const ordinal = Atomics.load(slot.shared, SLOT.PROGRESS);
    // A worker that never came online (a missing or broken bundle), or died with no review (building a set
    // its heap cannot hold), would do the same at once: its replacement waits, longer each time in a row.
    const restartInMs = slot.spare ? undefined : slot.online && entry ? 0 : Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** Math.min(this.failedStarts++, 5));
    this.logger({ level: 'warn', msg: 'review worker replaced', reason, ...(entry ? { policySet: entry.setName, ordinal } : {}), ...(restartInMs ? { restartInMs } : {}) });
    if (batch) {
      stopTimers(batch);
      let evaluatedAgain = false;
      if (entry && !entry.settled) {
        const stop: StopReason = reason === 'heap' ? 'size' : reason === 'cancelled' ? 'cancelled' : 'deadline';
        if (reason === 'crash') this.finish(entry, failure(500, 'error', 'internal error: the review worker stopped unexpectedly'));
        else if (reason === 'heap' && this.evaluateAgain(entry, ordinal, slot.used === true || index > 0)) evaluatedAgain = true;
        else this.stopped.answer(entry, ordinal, stop);
      }
      const again = batch.jobs.filter((job, at) => at !== index && !job.settled);
      // The review evaluated again goes first: its deadline has been running longest.
      if (evaluatedAgain && entry) again.unshift(entry);
      if (again.length > 0) this.waitAgain(again);
      else this.schedule();
    }
    if (slot.spare) {
      // Not replaced: another starts when a set waits for busy workers again, but not at once after one
      // that never came online (a missing or broken bundle would do the same).
      this.spareTimers.keep();
      if (!slot.online) this.noSpareUntil = performance.now() + RESTART_DELAY_MS;
      this.slots.splice(this.slots.indexOf(slot), 1);
      return;
    }
    const start = () => {
      if (this.closed) return;
      this.slots[this.slots.indexOf(slot)] = this.spawn();
      this.schedule();
    };
    if (!restartInMs) start();
    else setTimeout(start, restartInMs).unref();
  }

  /**
   * A review whose worker ran out of heap goes back to wait (evaluate-again.ts): without the Ignore policy
   * the worker was on, or as it is when the worker was reading its body after running others (`used`).
   */
  private evaluateAgain(entry: Job, ordinal: number, used: boolean): boolean {
    if (ordinal < 0) {
      if (!used || !this.again.mayRetryAsIs(entry)) return false;
      entry.outOfHeap = [];
      this.logger({ level: 'warn', msg: 'review evaluated again on another worker', policySet: entry.setName, reason: 'out of memory reading it, after other reviews' });
      return true;
    }
    const policy = this.again.policyToLeaveOut(entry, ordinal);
    if (!policy) return false;
    entry.outOfHeap = [ordinal];
    this.logger({ level: 'warn', msg: 'review evaluated again without a policy', policySet: entry.setName, policy: policy.name, reason: 'out of memory' });
    return true;
  }

  /** Answers the review (once); its worker, if any, may still be busy with it. */
  private finish(entry: Job, answer: ReviewAnswer): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.stopListening();
    entry.resolve(answer);
  }

  /** A new worker; a spare gets each set version with its first review of that set, not every set at once. */
  private spawn(spare = false): Slot {
    // The first worker may have been started by the server's entry already (early.ts).
    const shape = { heapMb: this.options.heapMb, nice: this.options.nice ?? DEFAULT_WORKER_NICE };
    const early = spare ? undefined : takeEarlyWorker(this.options.entry.url, shape);
    const { worker, shared } = early ?? newReviewWorker(this.options.entry.url, shape);
    const slot: Slot = { worker, shared, versions: new Map(), online: early?.online ?? false, retired: false, spare, sent: 0, awaiting: 0 };
    if (!spare) {
      for (const [name, latest] of this.latest) {
        if (latest.large && !latest.encoded) this.encodeForReplacement(slot, name, latest);
        else this.sendVersion(slot, name, latest.generation, latest.inputs);
      }
    }
    let outOfMemory = false;
    worker.once('online', () => (slot.online = true));
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (err: Error & { code?: string }) => {
      if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY') outOfMemory = true;
      else this.logger({ level: 'error', msg: 'review worker failed', error: String(err?.stack ?? err) });
      this.lastStartError = firstLine(String(err?.message ?? err));
    });
    worker.on('exit', () => this.replace(slot, outOfMemory ? 'heap' : 'crash'));
    // The pool never keeps the process alive: when to stop is the server's decision.
    worker.unref();
    return slot;
  }
}

/** Stops a batch's watches and the grace timers of its reviews (the batch is over, or its worker is gone). */
function stopTimers(batch: Batch): void {
  for (const timer of batch.timers.splice(0)) clearTimeout(timer);
  for (const entry of batch.jobs) for (const timer of entry.timers.splice(0)) clearTimeout(timer);
}

/** The first line of an error's message, at most 200 characters: for /readyz, which a person reads. */
function firstLine(message: string): string {
  const end = message.indexOf('\n');
  const line = end === -1 ? message : message.slice(0, end);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The metric labels of a policy set: its cluster's name, none for the default set. */
function setLabels(setName: string): Record<string, string> {
  const cluster = clusterOfSet(setName);
  return cluster === undefined ? {} : { cluster };
}
