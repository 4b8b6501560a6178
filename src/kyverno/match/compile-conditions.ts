/**
 * Preconditions checked at load: the `any` / `all` shape and every operator, normalized once so that
 * conditions.ts only compares per request.
 */
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import type { Report } from '../compile-report.js';
import type { Condition, ConditionBlock } from '../types.js';
import { normalizeOperator } from './operators.js';

/**
 * The operator names a policy may use: the keys of Kyverno's ConditionOperators, spelled exactly
 * (operator.IsOperatorValid, checked by its policy validation; only the handlers read them case-insensitively).
 */
const OPERATOR_NAMES = new Set([
  'Equal',
  'Equals',
  'NotEqual',
  'NotEquals',
  'In',
  'AnyIn',
  'AllIn',
  'NotIn',
  'AnyNotIn',
  'AllNotIn',
  'GreaterThanOrEquals',
  'GreaterThan',
  'LessThanOrEquals',
  'LessThan',
  'DurationGreaterThanOrEquals',
  'DurationGreaterThan',
  'DurationLessThanOrEquals',
  'DurationLessThan',
]);

export function compileConditions(raw: JsonValue | undefined, path: string, report: Report): ConditionBlock | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (Array.isArray(raw)) return { all: compileConditionList(raw, path, report) };
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object with any/all, or a list of conditions');
    return undefined;
  }
  const any = getOwn(raw, 'any');
  const all = getOwn(raw, 'all');
  const block: { any?: Condition[]; all?: Condition[] } = {};
  if (any !== undefined && any !== null) {
    if (!Array.isArray(any)) report.error(`${path}.any`, 'must be a list');
    // Present, even empty, `any` needs one condition to hold (Kyverno: `anyConditions != nil`).
    else block.any = compileConditionList(any, `${path}.any`, report);
  }
  if (all !== undefined && all !== null) {
    if (!Array.isArray(all)) report.error(`${path}.all`, 'must be a list');
    else if (all.length > 0) block.all = compileConditionList(all, `${path}.all`, report);
  }
  return block.any || block.all ? block : undefined;
}

function compileConditionList(raw: JsonValue[], path: string, report: Report): Condition[] {
  const out: Condition[] = [];
  raw.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!isJsonObject(c)) {
      report.error(at, 'a condition must be an object');
      return;
    }
    const op = getOwn(c, 'operator');
    const operator = typeof op === 'string' && OPERATOR_NAMES.has(op) ? normalizeOperator(op) : undefined;
    if (!operator) {
      report.error(`${at}.operator`, `unknown operator ${JSON.stringify(op ?? null)}`);
      return;
    }
    const message = getOwn(c, 'message');
    const condition = { key: getOwn(c, 'key') ?? null, operator, value: getOwn(c, 'value') ?? null };
    out.push(typeof message === 'string' && message !== '' ? { ...condition, message } : condition);
  });
  return out;
}
