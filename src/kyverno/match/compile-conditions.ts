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

/**
 * Kyverno's CRDs type a foreach entry's preconditions, where a rule's are free-form JSON
 * (api/kyverno/v1 ConditionsWrapper): a foreach entry's are an `AnyAllConditions` object only (the legacy
 * list fails to decode: ForEachMutationWrapper.UnmarshalJSON in api/kyverno/v1/wrappers.go, and the CRD
 * schema refuses it), and a top-level entry's operators are the CRD's enum, which leaves out the
 * deprecated spellings `Equal` and `NotEqual` that policy validation accepts elsewhere
 * (config/crds/kyverno/kyverno.io_clusterpolicies.yaml, mutate.foreach[].preconditions). A nested entry
 * is schemaless in the CRD, so only policy validation's list applies there.
 */
export type ConditionsSite = 'rule' | 'foreach' | 'nested-foreach';

/** What the CRD schema's enum allows for a top-level foreach entry's operators. */
const CRD_OPERATOR_NAMES = new Set([...OPERATOR_NAMES].filter((name) => name !== 'Equal' && name !== 'NotEqual'));

export function compileConditions(raw: JsonValue | undefined, path: string, report: Report, site: ConditionsSite = 'rule'): ConditionBlock | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (Array.isArray(raw)) {
    if (site !== 'rule') {
      report.error(path, 'a foreach entry\'s preconditions must be an object with any/all (the list form is only accepted in a rule\'s preconditions)');
      return undefined;
    }
    return { all: compileConditionList(raw, path, report, OPERATOR_NAMES) };
  }
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object with any/all, or a list of conditions');
    return undefined;
  }
  const any = getOwn(raw, 'any');
  const all = getOwn(raw, 'all');
  const names = site === 'foreach' ? CRD_OPERATOR_NAMES : OPERATOR_NAMES;
  const block: { any?: Condition[]; all?: Condition[] } = {};
  if (any !== undefined && any !== null) {
    if (!Array.isArray(any)) report.error(`${path}.any`, 'must be a list');
    // Present, even empty, `any` needs one condition to hold (Kyverno: `anyConditions != nil`).
    else block.any = compileConditionList(any, `${path}.any`, report, names);
  }
  if (all !== undefined && all !== null) {
    if (!Array.isArray(all)) report.error(`${path}.all`, 'must be a list');
    else if (all.length > 0) block.all = compileConditionList(all, `${path}.all`, report, names);
  }
  return block.any || block.all ? block : undefined;
}

function compileConditionList(raw: JsonValue[], path: string, report: Report, names: ReadonlySet<string>): Condition[] {
  const out: Condition[] = [];
  raw.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!isJsonObject(c)) {
      report.error(at, 'a condition must be an object');
      return;
    }
    const op = getOwn(c, 'operator');
    const operator = typeof op === 'string' && names.has(op) ? normalizeOperator(op) : undefined;
    if (!operator) {
      const deprecated = typeof op === 'string' && OPERATOR_NAMES.has(op);
      report.error(`${at}.operator`, deprecated ? `unknown operator ${JSON.stringify(op)}: Kyverno's CRD does not accept it in a foreach entry's preconditions (use ${op}s)` : `unknown operator ${JSON.stringify(op ?? null)}`);
      return;
    }
    const message = getOwn(c, 'message');
    // A typed string field: Kyverno's decoder refuses any other JSON type there (null is Go's "").
    if (message !== undefined && message !== null && typeof message !== 'string') report.error(`${at}.message`, 'must be a string');
    const condition = { key: getOwn(c, 'key') ?? null, operator, value: getOwn(c, 'value') ?? null };
    out.push(typeof message === 'string' && message !== '' ? { ...condition, message } : condition);
  });
  return out;
}
