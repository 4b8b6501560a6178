import { OutcomeError } from '../guard/index.js';
import { numberMarkOf, type NumberMark } from '../json/index.js';
import type { Operation } from './types.js';

/**
 * Thrown inside the appliers to abandon the current patch; `applyPatch` catches it at the module
 * boundary and turns it into a result value. Never escapes this folder.
 */
export class OpFailure extends OutcomeError {
  override name = 'OpFailure';
  private constructor(
    readonly kind: 'test-failed' | 'error',
    message: string,
  ) {
    super(message);
  }

  static error(message: string): OpFailure {
    return new OpFailure('error', message);
  }

  static testFailed(message: string): OpFailure {
    return new OpFailure('test-failed', message);
  }
}

/** The literal form of an operation's `value` when it is a number (`1.0`, an exact int64 past ±2^53). */
export function opValueMark(op: Operation): NumberMark {
  return 'value' in op ? numberMarkOf(op, 'value') : undefined;
}
