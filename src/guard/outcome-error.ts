/**
 * An error that is an outcome, not a fault: thrown as control flow inside the engines (a rule that
 * fails, a JMESPath key that does not resolve, a patch operation that does not apply, a condition anchor
 * that does not hold) and read by its kind and message. It captures no stack trace: the capture is most
 * of a throw's cost, and such errors are thrown per rule, per foreach element, per list item.
 */
export class OutcomeError extends Error {
  constructor(message?: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}
