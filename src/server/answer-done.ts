/**
 * When an answer has left the server. A request whose adapter can tell calls its listener once, when the
 * answer has been handed to the connection whole or the connection is gone (nothing more of it will be
 * written). The review route keeps an answer's bytes in the body budget until then (body-budget.ts): a
 * client that sends reviews and does not read their answers would otherwise keep every answer in memory
 * outside any bound, one per connection it holds, until the idle timeout drops it.
 */

/** A request whose adapter tells when its answer is done (the Node server's). */
export interface AnswerDoneRequest {
  /** `listener` runs once, when the answer is written or the connection gone; at once if that is past. */
  whenAnswerDone(listener: () => void): void;
}

/** `request` where its adapter tells when its answer is done; undefined otherwise (Workers, Lambda). */
export function answerDoneOf(request: Request): AnswerDoneRequest | undefined {
  const candidate = request as Partial<AnswerDoneRequest>;
  return typeof candidate.whenAnswerDone === 'function' ? (candidate as AnswerDoneRequest) : undefined;
}
