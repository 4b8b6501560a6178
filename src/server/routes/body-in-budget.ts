/**
 * A review's body read within the server's body budget (body-budget.ts): its bytes are taken before it is
 * read (its Content-Length; the most a body may be when it has none), waiting, unread, while they would
 * pass the budget, at most `waitForMs`. A body that is read within the budget holds its size until the
 * review is answered (`held`, given back by the caller).
 *
 * A body still arriving SLOW_BODY_MS after its reading began gives back the bytes it took and is counted
 * again, by its size, only once it is in: the API server sends a review at once, and a client that trickles
 * a large declared body would otherwise keep the budget taken up to the body timeout and hold every other
 * review waiting, with a few connections.
 *
 * A slow body is also told to the adapter (slow-body.ts), which may end the request to make room.
 *
 * Once answered, a review's body is no longer needed but its reply is, until written: holdForAnswer turns
 * the body's bytes into the reply's, given back when the adapter tells the answer is done (answer-done.ts).
 */
import { bodyBytesToHold, bodySize, readBoundedBody, type BodyResult } from '../body.js';
import type { BodyBudget, TakeOutcome } from '../body-budget.js';
import { answerDoneOf } from '../answer-done.js';
import { tellBodyIsSlow } from '../slow-body.js';
import type { ClientSignal } from '../client-signal.js';
import type { Limits } from '../limits.js';
import { abandonedAnswer, failure, type ReviewAnswer } from '../review.js';

/** How long a body may take to arrive before it stops being counted while it does, and is told slow (see above). */
export const SLOW_BODY_MS = 1000;

export type BodyInBudget =
  | { body: BodyResult; held: number; waitedMs: number }
  | { refused: ReviewAnswer };

export async function readBodyInBudget(
  request: Request,
  limits: Limits,
  budget: BodyBudget | undefined,
  options: { waitForMs: () => number; signal: ClientSignal; clock: () => number },
): Promise<BodyInBudget> {
  if (!budget) return { body: await readBoundedBody(request, limits), held: 0, waitedMs: 0 };
  let held = bodyBytesToHold(request, limits);
  let waitedMs = 0;
  if (held > 0 && !budget.tryTake(held)) {
    const from = options.clock();
    const waitFor = options.waitForMs();
    const outcome = await budget.take(held, waitFor, options.signal);
    if (outcome === 'client-gone') return { refused: abandonedAnswer('the review waited for room for its body') };
    if (outcome !== 'taken') return { refused: failure(503, 'unavailable', refusal(outcome, budget, waitFor)) };
    waitedMs = options.clock() - from;
  }
  let slow = false;
  const onSlow = () => {
    slow = true;
    budget.give(held);
    tellBodyIsSlow(request);
  };
  const body = await readBoundedBody(request, limits, held > 0 ? { afterMs: SLOW_BODY_MS, then: onSlow } : undefined);
  if (slow) {
    held = body.ok ? bodySize(body.body) : 0;
    budget.hold(held);
  } else if (!body.ok) {
    budget.give(held);
    held = 0;
  } else if (held > 0) {
    // A body of unknown length held the most a body may be: it keeps what it is (and a platform that let
    // a body pass its Content-Length, what it is too).
    const size = bodySize(body.body);
    if (size < held) budget.give(held - size);
    else budget.hold(size - held);
    held = size;
  }
  return { body, held, waitedMs };
}

/**
 * The `held` bytes of an answered review's body become its reply's `replyBytes` (the text's length: a
 * reply is JSON, mostly base64), kept until the answer is written or its connection gone. Where the
 * adapter cannot tell when that is (Workers: the runtime writes the reply), everything is given back now.
 */
export function holdForAnswer(request: Request, budget: BodyBudget, held: number, replyBytes: number): void {
  const told = answerDoneOf(request);
  if (replyBytes === 0 || told === undefined) {
    budget.give(held);
    return;
  }
  // Adjusted in one step: given back first, a waiting review could take room the reply still needs.
  if (replyBytes < held) budget.give(held - replyBytes);
  else if (replyBytes > held) budget.hold(replyBytes - held);
  told.whenAnswerDone(() => budget.give(replyBytes));
}

function refusal(outcome: Exclude<TakeOutcome, 'taken' | 'client-gone'>, budget: BodyBudget, waitedMs: number): string {
  const full = `the server already holds its budget of ${mebibytes(budget.limitBytes)} MiB of request bodies (being read, reviewed or answered)`;
  switch (outcome) {
    case 'too-many-waiting':
      return `${full}, and ${budget.maxWaiting === 1 ? 'another review waits' : `${budget.maxWaiting} reviews wait`} for room already`;
    case 'timed-out':
      return `${full}; this review waited ${waitedMs} ms for room`;
  }
}

function mebibytes(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(bytes % 2 ** 20 === 0 ? 0 : 1);
}
