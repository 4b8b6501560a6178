/**
 * A failure that belongs to one rule (a variable that does not resolve, a patch that does not parse or
 * apply, a list expression that fails…). The engine turns it into the rule's `error` outcome; it never
 * crosses the module boundary as an exception.
 */
export class KyvernoRuleError extends Error {
  override name = 'KyvernoRuleError';
  constructor(message?: string) {
    // A rule's outcome is its message: no stack trace is captured (a capture is most of a throw's cost,
    // and rules fail as a matter of course: a variable that does not resolve, a foreach element's patch).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** The message of any thrown value, for outcomes and logs. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
