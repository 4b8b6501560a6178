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

/** Kyverno's "empty mutate rule" (mutate.NewPatcher finds no patch): reported as it is, not as a failed patch. */
export class EmptyMutateRule extends KyvernoRuleError {
  override name = 'EmptyMutateRule';
  constructor() {
    super('empty mutate rule');
  }
}

/**
 * Kyverno's steps of a rule, as its messages name them when one fails (pkg/engine/mutate/mutation.go,
 * pkg/engine/engine.go invokeRuleHandler, pkg/engine/handlers/mutation/common.go, variables/evaluate.go).
 */
export const STEP = {
  context: 'failed to load context',
  preconditions: 'failed to evaluate preconditions',
  substitution: 'variable substitution failed',
  patch: 'failed to patch resource',
  conditionKey: 'failed to substitute variables in condition key',
  conditionValue: 'failed to substitute variables in condition value',
  elements: 'failed to mutate elements',
} as const;

/**
 * A rule error thrown in one step, worded as Kyverno words it: `<step>: <cause>`. Anything else (the
 * guard's stops, unexpected failures) and "empty mutate rule" are given back as they are.
 */
export function failedStep(step: string, error: unknown): unknown {
  if (!(error instanceof KyvernoRuleError) || error instanceof EmptyMutateRule) return error;
  return new KyvernoRuleError(`${step}: ${error.message}`);
}

/** The message of any thrown value, for outcomes and logs. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
