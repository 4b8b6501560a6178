/**
 * How the outcomes of a policy's matchConditions combine (`webhook/matchconditions/matcher.go`):
 * every condition is evaluated (no short circuit on error); any `false` skips the invocation whatever
 * the errors; otherwise errors (or a failure of the whole evaluation, e.g. the shared cost budget)
 * follow the failurePolicy: Fail → error, Ignore → skip (the error kept as `ignoredError`, for the trace
 * and the log: kube-apiserver counts it in a metric).
 */

import type { CompileResult, Evaluation } from '../cel/index.js';

export type ConditionOutcome = { name: string; result: boolean; error?: undefined } | { name: string; error: string; result?: undefined };

export type ConditionsVerdict =
  | { matches: true }
  /** `ignoredError`: skipped because a condition failed under failurePolicy Ignore (reported, not an error). */
  | { matches: false; failedConditionName?: string; ignoredError?: string }
  | { matches: false; error: string };

/** `utilerrors.NewAggregate(...).Error()`: one message as is, several distinct ones as `[a, b]`. */
export function aggregateMessages(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

/**
 * `failurePolicy` null/undefined means unset, which is Fail. `evaluationError` is the failure of the
 * evaluation as a whole, before any per-condition outcome counts.
 */
export function combineConditions(
  outcomes: readonly ConditionOutcome[],
  failurePolicy: string | null | undefined,
  evaluationError?: string,
): ConditionsVerdict {
  if (evaluationError !== undefined) return errorVerdict(evaluationError, failurePolicy);
  const errors: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.error !== undefined) errors.push(outcome.error);
    else if (outcome.result === false) return { matches: false, failedConditionName: outcome.name };
  }
  return conditionsVerdict(undefined, errors, failurePolicy);
}

/**
 * combineConditions from what its outcomes amount to: the name of the first condition that is false, and
 * the errors in order (undefined or empty: none). For a caller that folds outcomes as it evaluates them.
 */
export function conditionsVerdict(firstFalse: string | undefined, errors: readonly string[] | undefined, failurePolicy: string | null | undefined): ConditionsVerdict {
  if (firstFalse !== undefined) return { matches: false, failedConditionName: firstFalse };
  if (errors === undefined || errors.length === 0) return { matches: true };
  return errorVerdict(aggregateMessages(errors), failurePolicy);
}

/** The conditions could not be decided: an error, ignored under failurePolicy Ignore. */
export function errorVerdict(message: string, failurePolicy: string | null | undefined): ConditionsVerdict {
  return failurePolicy === 'Ignore' ? { matches: false, ignoredError: message } : { matches: false, error: message };
}

/** A named condition as compiled (a compile error is that condition's error at evaluation). */
export interface CompiledCondition {
  name: string;
  result: CompileResult;
}

/**
 * Evaluates every condition in one Evaluation (their cost budget shared) and folds the outcomes as
 * combineConditions does, without an outcome object per condition (most are true). A failure of the
 * evaluation as a whole (the shared budget ran out) decides alone.
 */
export function evaluateConditions(evaluation: Evaluation, conditions: readonly CompiledCondition[], failurePolicy: string | null | undefined): ConditionsVerdict {
  let firstFalse: string | undefined;
  let errors: string[] | undefined;
  for (const c of conditions) {
    if (!c.result.ok) {
      (errors ??= []).push(`compilation error: ${c.result.message}`);
      continue;
    }
    const r = evaluation.evaluate(c.result.compiled);
    if (!r.ok) {
      if (r.kind === 'budget') return errorVerdict(r.message, failurePolicy);
      (errors ??= []).push(r.message);
    } else if (typeof r.value !== 'boolean') {
      (errors ??= []).push(`expression '${c.result.compiled.expression}' must evaluate to bool`);
    } else if (r.value === false) {
      firstFalse ??= c.name;
    }
  }
  return conditionsVerdict(firstFalse, errors, failurePolicy);
}
