/**
 * Preconditions (`any` / `all`, pkg/engine/variables/evaluate.go): each condition's key and value are
 * substituted, then compared with its operator. `any` holds when one condition does, `all` when every
 * one does; with both, both must hold. A variable that does not resolve is an error, not "false".
 */
import type { JsonValue } from '../../json/index.js';
import { evaluateOperator } from './operators.js';
import type { Condition, ConditionBlock } from '../types.js';
import { substituteAll, type SubstitutionScope } from '../context/variables.js';
import { failedStep, STEP } from '../errors.js';

export function conditionsHold(block: ConditionBlock | undefined, scope: SubstitutionScope): boolean {
  return conditionsFailure(block, scope) === undefined;
}

/**
 * Undefined when the block holds; otherwise the messages Kyverno reports for it (evaluate.go): those of every
 * `any` condition when none holds, then that of the first false `all` condition, joined by "; " ('' for none).
 * `all` is evaluated even when `any` failed, as in Kyverno (its errors count).
 */
export function conditionsFailure(block: ConditionBlock | undefined, scope: SubstitutionScope): string | undefined {
  if (!block) return undefined;
  // Index loops, not for-of: the blocks are a compiled policy's frozen lists, which V8 iterates slowly.
  let anyHolds = true;
  const any = block.any;
  if (any) {
    anyHolds = false;
    for (let i = 0; i < any.length; i++) {
      if (conditionHolds(any[i], scope)) {
        anyHolds = true;
        break;
      }
    }
  }
  let failedAll: Condition | undefined;
  const all = block.all;
  if (all) {
    for (let i = 0; i < all.length; i++) {
      if (!conditionHolds(all[i], scope)) {
        failedAll = all[i];
        break;
      }
    }
  }
  if (anyHolds && failedAll === undefined) return undefined;
  // The failure path only: the messages are gathered once the outcome is known (most conditions have none).
  let messages = '';
  if (!anyHolds) {
    for (let i = 0; i < any!.length; i++) {
      const m = any![i].message;
      if (m !== undefined) messages = messages === '' ? m : `${messages}; ${m}`;
    }
  }
  const m = failedAll?.message;
  if (m !== undefined) messages = messages === '' ? m : `${messages}; ${m}`;
  return messages;
}

function conditionHolds(condition: Condition, scope: SubstitutionScope): boolean {
  let key: JsonValue;
  let value: JsonValue;
  try {
    key = substituteAll(condition.key, scope);
  } catch (error) {
    throw failedStep(STEP.conditionKey, error);
  }
  try {
    value = substituteAll(condition.value, scope);
  } catch (error) {
    throw failedStep(STEP.conditionValue, error);
  }
  return evaluateOperator(condition.operator, key, value, scope.ctx.guard);
}
