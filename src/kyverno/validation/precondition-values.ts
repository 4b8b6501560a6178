/**
 * What Kyverno's policy validation refuses in a rule's own `preconditions` (pkg/validation/policy
 * validateConditions / validateConditionValues, reached from validateResources; foreach preconditions get
 * the operator check only, which compiling does here): a condition without `key`, `value` or `operator`
 * (null counts as missing), and with the key `{{request.operation}}` (spaces aside) a value that is not
 * CREATE, UPDATE, DELETE or CONNECT, a list of them, or a `{{ }}` template. `required` findings: a policy
 * set refuses the policy, as Kyverno does; run directly, the condition evaluates as before.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import type { ProblemSink } from './sink.js';

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const ALLOWED = 'Only the following values are allowed: [CREATE, UPDATE, DELETE, CONNECT]';
const REFUSED = ' (Kyverno refuses the policy)';

export function checkPreconditionValues(rule: JsonObject, path: string, report: ProblemSink): void {
  const raw = getOwn(rule, 'preconditions');
  const at = `${path}.preconditions`;
  // The two forms Kyverno decodes: the old list of conditions, or `any` / `all` lists.
  if (Array.isArray(raw)) {
    raw.forEach((c, i) => checkCondition(c, `${at}[${i}]`, report));
  } else if (isJsonObject(raw)) {
    for (const key of ['any', 'all']) {
      const list = getOwn(raw, key);
      if (Array.isArray(list)) list.forEach((c, i) => checkCondition(c, `${at}.${key}[${i}]`, report));
    }
  }
}

function checkCondition(condition: JsonValue, path: string, report: ProblemSink): void {
  if (!isJsonObject(condition)) return;
  const key = getOwn(condition, 'key');
  const value = getOwn(condition, 'value');
  // A missing operator is refused when the condition compiles (unknown operator).
  if (key === undefined || key === null || value === undefined || value === null) {
    report.find(path, `entered value of \`key\`, \`value\` or \`operator\` is missing or misspelled${REFUSED}`, 'required');
    return;
  }
  if (typeof key !== 'string' || key.replaceAll(' ', '') !== '{{request.operation}}') return;
  if (typeof value === 'string') {
    if (value.length >= 4 && value.startsWith('{{') && value.endsWith('}}')) return;
    if (!OPERATIONS.has(value)) report.find(`${path}.value`, `unknown value '${value}' found under the 'value' field. ${ALLOWED}${REFUSED}`, 'required');
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item !== 'string') {
        report.find(`${path}.value[${i}]`, `'value[${i}]' is not a string. The provided values are expected to be strings${REFUSED}`, 'required');
        return;
      }
      if (!OPERATIONS.has(item)) {
        report.find(`${path}.value[${i}]`, `unknown value '${item}' found under the 'value' field. ${ALLOWED}${REFUSED}`, 'required');
        return;
      }
    }
  } else {
    report.find(`${path}.value`, `'value' field is neither a string nor a list. The provided value/values are expected to be either in the form of a string or list${REFUSED}`, 'required');
  }
}
