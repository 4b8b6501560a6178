import { OutcomeError } from '../guard/index.js';

/**
 * A failure that belongs to one rule (a variable that does not resolve, a patch that does not parse or
 * apply, a list expression that fails…). The engine turns it into the rule's `error` outcome; it never
 * crosses the module boundary as an exception.
 */
export class KyvernoRuleError extends OutcomeError {
  override name = 'KyvernoRuleError';
  // A rule's outcome is its message (rules fail as a matter of course: a variable that does not resolve,
  // a foreach element's patch): an OutcomeError, no stack trace.
}

/** The message of any thrown value, for outcomes and logs. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
