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
 * One review per worker at a time; when every worker is busy, reviews wait in a bounded queue. A worker
 * gets each set version (`PolicySetState.inputs` and `.generation`) once and builds it itself (a compiled
 * set holds closures that cannot cross threads); a review names the version it was read with.
 *
 * The workers start one after the other: one at once (or the one the server's entry started before the
 * server's script, early.ts), the others once its first answer is passed on, when a review has to wait
 * for a worker, or STAGGER_MS after the start, whichever comes first. Booting a
 * worker (loading the engine into a new isolate, then compiling it on its first review) takes as much CPU
 * as the server's own start; on the one or two cores a function usually gets, workers booting side by
 * side delayed the first reply by half as much again (npm run bench -- 60).
 *
 * A review costs at most its worker: when it runs past its deadline plus the grace period, or its client
 * went away and it did not stop within the grace period, the worker is terminated; when it exhausts the
 * worker's heap (resourceLimits), the worker dies. Either way a new worker takes the slot and the review is
 * answered by the failure policy of the policy that was running and those after it (stopped.ts).
 */
import type { Worker } from 'node:worker_threads';
import type { PolicySet } from '../../policyset/index.js';
import { CallbackGauge, Counter, failure, inProcessReviewer, type Logger, type Registry, type ReviewAnswer, type Reviewer, type ReviewJob } from '../../server/index.js';
import { SLOT, type FromWorker, type ToWorker } from './protocol.js';
import { fromWire } from './wire.js';
import { answerStoppedReview } from '../../engine/index.js';
import { stoppedReviewAnswer, type AnswerStopped, type StopReason } from './stopped.js';
import type { WorkerEntry } from './entry.js';
import { newReviewWorker, takeEarlyWorker } from './early.js';

export interface PoolOptions {
  /** Worker threads (at least 1). */
  workers: number;
  /** resourceLimits.maxOldGenerationSizeMb of each worker. */
  heapMb: number;
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
}

/** Why a worker was replaced (the `reason` label of amender_workers_replaced_total). */
export type ReplaceReason = 'deadline' | 'heap' | 'cancelled' | 'crash';

/** A review waiting for, or held by, a worker. */
interface Job {
  id: number;
  job: ReviewJob;
  set: PolicySet;
  generation: number;
  inputs: NonNullable<ReviewJob['state']['inputs']>;
  /** performance.now() when the review's deadline passes (counted from its arrival, queue included). */
  deadlineAt: number;
  resolve: (answer: ReviewAnswer) => void;
  /** Answered already (the client left, or it waited past its deadline); its worker may still be busy. */
  settled: boolean;
  stopListening: () => void;
  /** The queue's deadline timer, then the worker's deadline + grace timer, then the cancel grace timer. */
  timers: ReturnType<typeof setTimeout>[];
}

interface Slot {
  worker: Worker;
  shared: Int32Array;
  /** Set versions this worker holds, by set name (mirrors the worker's own keep rule). */
  versions: Map<string, number[]>;
  job?: Job;
  online: boolean;
  /** Stopped by the pool, or dead: its 'exit' is expected, it takes no review. */
  retired: boolean;
}

const KEEP_VERSIONS = 2;
/** When the workers after the first start at the latest, by default (see the class comment). */
const STAGGER_MS = 2000;
/** A worker that dies before it is even online is restarted after this (a missing or broken bundle). */
const RESTART_DELAY_MS = 1000;

export class ReviewPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly answerStopped: AnswerStopped;
  private readonly logger: Logger;
  private nextId = 1;
  private closed = false;
  /** Workers not started yet (see grow). */
  private unstarted: number;
  /** The newest version of each set seen, sent to every worker as soon as it is seen (and to new workers). */
  private readonly latest = new Map<string, { generation: number; inputs: Job['inputs'] }>();
  private readonly replaced = new Counter('amender_workers_replaced_total', 'Review workers terminated or lost and replaced, by reason (deadline, heap, cancelled, crash).');

  constructor(private readonly options: PoolOptions) {
    if (!Number.isSafeInteger(options.workers) || options.workers < 1) throw new RangeError(`a review pool needs at least one worker, got ${options.workers}`);
    this.answerStopped = options.answerStopped ?? answerStoppedReview;
    this.logger = options.logger ?? (() => {});
    this.slots.push(this.spawn());
    this.unstarted = options.workers - 1;
    if (this.unstarted > 0) setTimeout(() => this.grow(), options.staggerMs ?? STAGGER_MS).unref();
  }

  /** Starts the workers not started yet; each takes a review waiting, if any. */
  private grow(): void {
    for (; this.unstarted > 0 && !this.closed; this.unstarted--) {
      const slot = this.spawn();
      this.slots.push(slot);
      this.release(slot);
    }
  }

  /** For `createApp({ reviewer })`. */
  readonly reviewer: Reviewer = (job) => this.review(job);

  /** amender_workers, amender_workers_busy, amender_review_queue_length, amender_workers_replaced_total. */
  registerMetrics(registry: Registry): void {
    registry.register(new CallbackGauge('amender_workers', 'Review worker threads running.', () => [[{}, this.slots.filter((s) => !s.retired).length]]));
    registry.register(new CallbackGauge('amender_workers_busy', 'Review worker threads evaluating a review.', () => [[{}, this.slots.filter((s) => s.job && !s.retired).length]]));
    registry.register(new CallbackGauge('amender_review_queue_length', 'Reviews waiting for a free worker.', () => [[{}, this.queue.length]]));
    registry.register(this.replaced);
  }

  /** Terminates every worker; reviews waiting or in progress are answered 503. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing = failure(503, 'unavailable', 'the server is shutting down');
    for (const entry of this.queue.splice(0)) this.finish(entry, closing);
    await Promise.all(
      this.slots.map((slot) => {
        slot.retired = true;
        if (slot.job) this.finish(slot.job, closing);
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
    for (const slot of this.slots) if (!slot.retired) this.sendVersion(slot, setName, generation, inputs);
  }

  private review(job: ReviewJob): Promise<ReviewAnswer> {
    const { set, inputs, generation } = job.state;
    // Without a set (not loaded yet) the answer is a 503 after validation; a set not made by a refresher
    // (no inputs to rebuild it from) can only be evaluated here.
    if (!set || inputs === undefined || generation === undefined || this.closed) return inProcessReviewer(job);
    if (job.signal.aborted) return Promise.resolve(cancelledAnswer());
    // A new version: every worker builds it now, before a review for it reaches that worker.
    this.prepare(job.setName, job.state);
    let idle = this.idleSlot();
    if (!idle && this.unstarted > 0) {
      this.grow();
      idle = this.idleSlot();
    }
    if (!idle && this.queue.length >= this.options.queueLimit) {
      return Promise.resolve(failure(503, 'unavailable', `all ${this.slots.length} review workers are busy and ${this.queue.length} reviews are waiting`));
    }
    return new Promise<ReviewAnswer>((resolve) => {
      const onAbort = () => this.abandon(entry);
      const entry: Job = {
        id: this.nextId++,
        job,
        set,
        generation,
        inputs,
        deadlineAt: performance.now() + job.limits.reviewDeadlineMs,
        resolve,
        settled: false,
        stopListening: () => job.signal.removeEventListener('abort', onAbort),
        timers: [],
      };
      job.signal.addEventListener('abort', onAbort, { once: true });
      if (idle) return this.dispatch(idle, entry);
      this.queue.push(entry);
      // A review that waits past its deadline is answered by failure policy without running.
      entry.timers.push(
        setTimeout(() => {
          const at = this.queue.indexOf(entry);
          if (at < 0) return;
          this.queue.splice(at, 1);
          this.finish(entry, this.stoppedAnswer(entry, -1, 'deadline'));
        }, Math.max(0, entry.deadlineAt - performance.now())),
      );
    });
  }

  private idleSlot(): Slot | undefined {
    return this.slots.find((s) => !s.job && !s.retired);
  }

  private dispatch(slot: Slot, entry: Job): void {
    for (const timer of entry.timers.splice(0)) clearTimeout(timer);
    slot.job = entry;
    Atomics.store(slot.shared, SLOT.PROGRESS, -1);
    this.sendVersion(slot, entry.job.setName, entry.generation, entry.inputs);
    const remaining = Math.max(1, Math.floor(entry.deadlineAt - performance.now()));
    slot.worker.postMessage({
      type: 'review',
      id: entry.id,
      setName: entry.job.setName,
      generation: entry.generation,
      body: entry.job.body,
      maxJsonDepth: entry.job.limits.maxJsonDepth,
      deadlineMs: remaining,
      maxValueBytes: entry.job.limits.maxValueBytes,
    } satisfies ToWorker);
    // The engine stops a review at its deadline; past the grace period the worker is presumed stuck.
    entry.timers.push(setTimeout(() => this.overdue(slot, entry), remaining + this.options.graceMs));
  }

  /**
   * A review past its deadline and the grace period. A worker building a set version is not cut short
   * (the build is bounded, the main thread made the same one, and its replacement would have to start
   * over): the review is answered now and the worker told to skip it. Otherwise the worker is replaced.
   */
  private overdue(slot: Slot, entry: Job): void {
    if (slot.job !== entry || slot.retired) return;
    if (Atomics.load(slot.shared, SLOT.BUILDING) === 1) {
      this.finish(entry, this.stoppedAnswer(entry, -1, 'deadline'));
      Atomics.store(slot.shared, SLOT.CANCEL, entry.id);
      entry.timers.push(setTimeout(() => this.overdue(slot, entry), this.options.graceMs));
      return;
    }
    this.replace(slot, 'deadline');
  }

  /** Posts a set version to the worker unless it holds it. */
  private sendVersion(slot: Slot, name: string, generation: number, inputs: Job['inputs']): void {
    const held = slot.versions.get(name) ?? [];
    if (held.includes(generation)) return;
    slot.worker.postMessage({ type: 'set', setName: name, generation, inputs } satisfies ToWorker);
    // The worker keeps the newest versions and never drops the one just sent: the same rule here.
    const kept = [...held].sort((a, b) => a - b);
    while (kept.length >= KEEP_VERSIONS) kept.shift();
    kept.push(generation);
    slot.versions.set(name, kept);
  }

  /** The client went away: answer now, ask the worker to stop, replace it if it does not in time. */
  private abandon(entry: Job): void {
    const queued = this.queue.indexOf(entry);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      for (const timer of entry.timers.splice(0)) clearTimeout(timer);
    }
    this.finish(entry, cancelledAnswer());
    const slot = this.slots.find((s) => s.job === entry && !s.retired);
    if (!slot) return;
    Atomics.store(slot.shared, SLOT.CANCEL, entry.id);
    const check = () => {
      if (slot.job !== entry || slot.retired) return;
      // A set being built finishes (see overdue); the worker then skips the cancelled review.
      if (Atomics.load(slot.shared, SLOT.BUILDING) === 1) entry.timers.push(setTimeout(check, this.options.graceMs));
      else this.replace(slot, 'cancelled');
    };
    entry.timers.push(setTimeout(check, this.options.graceMs));
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    const entry = slot.job;
    if (slot.retired || !entry || entry.id !== message.id) return;
    this.finish(entry, fromWire(message.answer));
    this.release(slot);
    // Not before the reply is written: constructing a Worker holds this thread ~10 ms, which the first
    // reply of a cold start waited for (npm run bench -- 60).
    if (this.unstarted > 0) setImmediate(() => this.grow());
  }

  /** The worker is free again (or a fresh one took the slot): give it the next review waiting. */
  private release(slot: Slot): void {
    const entry = slot.job;
    slot.job = undefined;
    if (entry) for (const timer of entry.timers.splice(0)) clearTimeout(timer);
    if (this.closed || slot.retired) return;
    const next = this.queue.shift();
    if (next) this.dispatch(slot, next);
  }

  /** Terminates (or buries) a worker, answers its review by failure policy, and starts a replacement. */
  private replace(slot: Slot, reason: ReplaceReason): void {
    if (slot.retired || this.closed) return;
    slot.retired = true;
    void slot.worker.terminate();
    this.replaced.inc({ reason });
    const entry = slot.job;
    const ordinal = Atomics.load(slot.shared, SLOT.PROGRESS);
    this.logger({ level: 'warn', msg: 'review worker replaced', reason, ...(entry ? { policySet: entry.job.setName, ordinal } : {}) });
    if (entry) {
      for (const timer of entry.timers.splice(0)) clearTimeout(timer);
      if (!entry.settled) {
        const stop: StopReason = reason === 'heap' ? 'size' : reason === 'cancelled' ? 'cancelled' : 'deadline';
        this.finish(entry, reason === 'crash' ? failure(500, 'error', 'internal error: the review worker stopped unexpectedly') : this.stoppedAnswer(entry, ordinal, stop));
      }
    }
    const index = this.slots.indexOf(slot);
    const start = () => {
      if (this.closed) return;
      const fresh = this.spawn();
      this.slots[index] = fresh;
      this.release(fresh);
    };
    // A worker that never came online (a missing or broken bundle), or died with no review (building a set
    // its heap cannot hold), would do the same at once: its replacement waits a little.
    if (slot.online && entry) start();
    else setTimeout(start, RESTART_DELAY_MS).unref();
  }

  private stoppedAnswer(entry: Job, ordinal: number, reason: StopReason): ReviewAnswer {
    try {
      return stoppedReviewAnswer(entry.job.body, entry.set, entry.job.limits.maxJsonDepth, ordinal, reason, this.answerStopped);
    } catch (error) {
      return failure(500, 'error', 'internal error while answering a stopped review', { error });
    }
  }

  /** Answers the review (once); its worker, if any, may still be busy with it. */
  private finish(entry: Job, answer: ReviewAnswer): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.stopListening();
    entry.resolve(answer);
  }

  private spawn(): Slot {
    // The first worker may have been started by the server's entry already (early.ts).
    const early = takeEarlyWorker(this.options.entry.url, this.options.heapMb);
    const { worker, shared } = early ?? newReviewWorker(this.options.entry.url, this.options.heapMb);
    const slot: Slot = { worker, shared, versions: new Map(), online: early?.online ?? false, retired: false };
    for (const [name, { generation, inputs }] of this.latest) this.sendVersion(slot, name, generation, inputs);
    let outOfMemory = false;
    worker.once('online', () => (slot.online = true));
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (err: Error & { code?: string }) => {
      if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY') outOfMemory = true;
      else this.logger({ level: 'error', msg: 'review worker failed', error: String(err?.stack ?? err) });
    });
    worker.on('exit', () => this.replace(slot, outOfMemory ? 'heap' : 'crash'));
    // The pool never keeps the process alive: when to stop is the server's decision.
    worker.unref();
    return slot;
  }
}

/** A worker's answer as the route takes it: an admission reply keeps its JSON text, its object is parsed only if read. */
function cancelledAnswer(): ReviewAnswer {
  return failure(503, 'unavailable', 'the review was cancelled: the client went away');
}
