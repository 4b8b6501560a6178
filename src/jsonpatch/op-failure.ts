import { OutcomeError } from '../guard/index.js';
import { isFloatLiteral } from '../json/index.js';
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

/** Whether an operation's `value` is a number its source wrote as a float (`1.0`). */
export function opValueIsFloat(op: Operation): boolean {
  return 'value' in op && typeof op.value === 'number' && isFloatLiteral(op, 'value');
}
