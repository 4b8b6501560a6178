/**
 * Entry of a review worker thread (dist/node/worker.js): builds the policy set versions the pool sends
 * and answers reviews against them. Progress (the policy being evaluated) and cancellation go through the
 * shared memory of protocol.ts, because a worker busy with a review does not read messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildPolicySet, type PolicySet } from '../../policyset/index.js';
import { answerReviewBody, failure, type ReviewAnswer } from '../../server/index.js';
import { SLOT, type FromWorker, type ReviewMessage, type SetMessage, type ToWorker, type WireAnswer, type WorkerData } from './protocol.js';

if (!parentPort) throw new Error('the review worker runs as a worker thread of the Node server');
const port = parentPort;
const shared = new Int32Array((workerData as WorkerData).shared);

/** Set versions by set name: the newest two, plus one an older request asked for. */
const sets = new Map<string, Map<number, PolicySet | Error>>();
const KEEP = 2;

function keep(message: SetMessage): void {
  let versions = sets.get(message.setName);
  if (!versions) sets.set(message.setName, (versions = new Map()));
  let built: PolicySet | Error;
  Atomics.store(shared, SLOT.BUILDING, 1);
  try {
    built = buildPolicySet(message.inputs);
  } catch (err) {
    built = err instanceof Error ? err : new Error(String(err));
  } finally {
    Atomics.store(shared, SLOT.BUILDING, 0);
  }
  versions.set(message.generation, built);
  // Drop the oldest versions beyond KEEP, never the one just built (a review for it follows).
  const older = [...versions.keys()].filter((g) => g !== message.generation).sort((a, b) => a - b);
  while (versions.size > KEEP) versions.delete(older.shift()!);
}

async function review(message: ReviewMessage): Promise<ReviewAnswer> {
  const built = sets.get(message.setName)?.get(message.generation);
  if (built === undefined) return failure(500, 'error', `internal error: policy set ${message.setName} version ${message.generation} was not sent to this worker`);
  if (built instanceof Error) return failure(500, 'error', `internal error: building policy set ${message.setName} in a worker failed: ${built.message}`);
  // Answered already while its set was being built (its deadline passed): nothing left to do.
  if (Atomics.load(shared, SLOT.CANCEL) === message.id) return failure(503, 'unavailable', 'the review was cancelled before it started');
  Atomics.store(shared, SLOT.PROGRESS, -1);
  const result = await answerReviewBody(message.body, built, message.maxJsonDepth, {
    deadlineMs: message.deadlineMs,
    maxValueBytes: message.maxValueBytes,
    isCancelled: () => Atomics.load(shared, SLOT.CANCEL) === message.id,
    onPolicyStart: (ordinal) => Atomics.store(shared, SLOT.PROGRESS, ordinal),
  });
  // An Error does not keep its class across threads; the access log only needs its text.
  if ('error' in result && result.error !== undefined) {
    const error = result.error as { stack?: string };
    return { ...result, error: String(error?.stack ?? result.error) };
  }
  return result;
}

/** An admission reply crosses as its JSON text (see WireAnswer). */
function toWire(answer: ReviewAnswer): WireAnswer {
  if (answer.status !== 200) return answer;
  const { body, ...rest } = answer;
  return { ...rest, bodyText: JSON.stringify(body) };
}

// One review at a time: the pool sends the next only after this one's answer.
port.on('message', (message: ToWorker) => {
  if (message.type === 'set') return keep(message);
  void review(message)
    .catch((err: unknown) => failure(500, 'error', `internal error while evaluating a review`, { error: String((err as Error)?.stack ?? err) }))
    .then((result) => port.postMessage({ type: 'answer', id: message.id, answer: toWire(result) } satisfies FromWorker));
});
