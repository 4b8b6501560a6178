/**
 * What the `kyverno.io/v2beta1` schema of ClusterPolicy and Policy refuses that `v1` accepts
 * (api/kyverno/v2beta1/rule_types.go, common_types.go; the v2beta1 version of the CRD): its `match` and
 * `exclude` hold `any`/`all` only (no legacy `resources`, `roles`, `clusterRoles`, `subjects`), and a
 * rule's `preconditions` are a typed object of `any`/`all` whose operators are the v2beta1 enum, without
 * the deprecated `In`, `NotIn`, `Equal` and `NotEqual`. A foreach entry keeps v1's types (v2beta1 reuses
 * kyvernov1.Mutation).
 */
import { getOwn, isJsonObject, type JsonObject } from '../../json/index.js';
import type { ProblemSink } from './sink.js';

const V2BETA1_OPERATORS = new Set([
  'Equals', 'NotEquals', 'AnyIn', 'AllIn', 'AnyNotIn', 'AllNotIn', 'GreaterThanOrEquals', 'GreaterThan',
  'LessThanOrEquals', 'LessThan', 'DurationGreaterThanOrEquals', 'DurationGreaterThan', 'DurationLessThanOrEquals', 'DurationLessThan',
]);

export function checkV2beta1Rule(rule: JsonObject, path: string, report: ProblemSink): void {
  for (const section of ['match', 'exclude'] as const) {
    const block = getOwn(rule, section);
    if (!isJsonObject(block)) continue;
    for (const key of Object.keys(block)) {
      if (key !== 'any' && key !== 'all') {
        report.error(`${path}.${section}.${key}`, `unknown field: kyverno.io/v2beta1 ${section} blocks take any/all only`);
      }
    }
  }
  const preconditions = getOwn(rule, 'preconditions');
  if (Array.isArray(preconditions)) {
    report.error(`${path}.preconditions`, 'kyverno.io/v2beta1 preconditions are an object with any/all (the list form is v1 only)');
    return;
  }
  if (!isJsonObject(preconditions)) return;
  for (const quantifier of ['any', 'all'] as const) {
    const list = getOwn(preconditions, quantifier);
    if (!Array.isArray(list)) continue;
    list.forEach((condition, i) => {
      const op = isJsonObject(condition) ? getOwn(condition, 'operator') : undefined;
      if (typeof op === 'string' && !V2BETA1_OPERATORS.has(op)) {
        report.error(`${path}.preconditions.${quantifier}[${i}].operator`, `unsupported value "${op}": kyverno.io/v2beta1 has no deprecated operators (In, NotIn, Equal, NotEqual)`);
      }
    });
  }
}
