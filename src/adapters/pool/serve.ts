/**
 * The body of a review worker thread: builds the policy set versions the pool sends and answers reviews
 * against them. Progress (the policy being evaluated) and cancellation go through the shared memory of
 * protocol.ts, because a worker busy with a review does not read messages. worker.ts starts it; a test
 * worker may start it with its own set builder (a fault injected into the sets the engine receives).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildPolicySet, type ParsedSource, type PolicySet } from '../../policyset/index.js';
import { answerReviewBody, failure, type ReviewAnswer } from '../../server/index.js';
import { decodeInputs } from './encoded-set.js';
import { SLOT, type FromWorker, type ReviewMessage, type SetMessage, type ToWorker, type WorkerData } from './protocol.js';
import { AnswerPacker } from './wire.js';

export interface ReviewWorkerOptions {
  /** Builds a set version from the documents the pool sends (default: buildPolicySet). */
  buildSet?: (inputs: readonly ParsedSource[]) => PolicySet;
  /** Called once, when the first answer is ready and before it is sent (the build's warm-up, worker.ts). */
  beforeFirstAnswer?: () => void;
}

/** How long a worker holds answers ready while it goes on with its batch. */
const HOLD_MS = 2;

/** Set versions kept per set name: the newest two, plus one an older request asked for. */
const KEEP = 2;

export function serveReviews(options: ReviewWorkerOptions = {}): void {
  if (!parentPort) throw new Error('the review worker runs as a worker thread of the Node server');
  const port = parentPort;
  const shared = new Int32Array((workerData as WorkerData).shared);
  const buildSet = options.buildSet ?? ((inputs) => buildPolicySet(inputs));
  const sets = new Map<string, Map<number, PolicySet | Error>>();

  const keep = (message: SetMessage): void => {
    let versions = sets.get(message.setName);
    if (!versions) sets.set(message.setName, (versions = new Map()));
    let built: PolicySet | Error;
    Atomics.store(shared, SLOT.BUILDING, 1);
    try {
      built = buildSet(message.encoded ? decodeInputs(message.encoded) : message.inputs!);
    } catch (err) {
      built = err instanceof Error ? err : new Error(String(err));
    } finally {
      Atomics.store(shared, SLOT.BUILDING, 0);
      Atomics.add(shared, SLOT.BUILT, 1);
    }
    versions.set(message.generation, built);
    // Drop the oldest versions beyond KEEP, never the one just built (a review for it follows).
    const older = [...versions.keys()].filter((g) => g !== message.generation).sort((a, b) => a - b);
    while (versions.size > KEEP) versions.delete(older.shift()!);
  };

  const review = async (message: ReviewMessage, deadlineMs: number, onCheck: () => void): Promise<ReviewAnswer> => {
    const built = sets.get(message.setName)?.get(message.generation);
    if (built === undefined) return failure(500, 'error', `internal error: policy set ${message.setName} version ${message.generation} was not sent to this worker`);
    if (built instanceof Error) return failure(500, 'error', `internal error: building policy set ${message.setName} in a worker failed: ${built.message}`, { error: built });
    // Answered already (its client left, or its deadline passed while its set was being built): nothing left to do.
    if (Atomics.load(shared, SLOT.CANCEL) === message.id) return failure(503, 'unavailable', 'the review was cancelled before it started');
    return answerReviewBody(message.body, built, message.maxJsonDepth, {
      deadlineMs,
      maxValueBytes: message.maxValueBytes,
      // The engine asks at every coarse step and every few thousand loop turns: answers held then go out.
      isCancelled: () => {
        onCheck();
        return Atomics.load(shared, SLOT.CANCEL) === message.id;
      },
      onPolicyStart: (ordinal) => Atomics.store(shared, SLOT.PROGRESS, ordinal),
      outOfHeap: message.outOfHeap,
    });
  };

  let firstAnswer = true;
  // The answers held, sent together.
  const held = new AnswerPacker();
  const send = (done: boolean): void => {
    if (firstAnswer && held.size > 0) {
      firstAnswer = false;
      options.beforeFirstAnswer?.();
    }
    const answers = held.take();
    port.postMessage({ type: 'answers', done, ...(answers ? { answers } : {}) } satisfies FromWorker);
  };

  // One batch at a time: the pool sends the next only after this one's `done`. Answers ready are held and
  // go together (each message wakes the main thread's loop), but never longer than HOLD_MS: before the next
  // review starts, and while it runs (the engine's guard checks), answers held that long are sent, so a
  // review that runs long does not hold those before it.
  const answerBatch = async (reviews: readonly ReviewMessage[]): Promise<void> => {
    const receivedAt = performance.now();
    let heldSince = 0;
    const sendHeld = (): void => {
      if (held.size === 0 || performance.now() - heldSince < HOLD_MS) return;
      send(false);
    };
    for (let i = 0; i < reviews.length; i++) {
      // The pool took back the reviews not started (one before them ran long).
      if (Atomics.compareExchange(shared, SLOT.CLAIMED, i - 1, i) !== i - 1) break;
      // Review i's now: what the previous one reached is not its progress (sendHeld may run out of heap).
      Atomics.store(shared, SLOT.PROGRESS, -1);
      sendHeld();
      const message = reviews[i];
      // The deadline kept counting while the reviews before this one ran.
      const deadlineMs = Math.max(1, Math.floor(receivedAt + message.deadlineMs - performance.now()));
      const answer = await review(message, deadlineMs, sendHeld)
        // answerReviewBody is the error boundary; this catches only a failure of the worker's own steps.
        .catch((error: unknown) => failure(500, 'error', 'internal error while evaluating a review', { error }));
      if (held.size === 0) heldSince = performance.now();
      held.add(message.id, answer);
    }
    send(true);
  };

  Atomics.store(shared, SLOT.LOADED, 1);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'set') return keep(message);
    void answerBatch(message.reviews);
  });
}
