/**
 * What Kyverno's policy validation (pkg/validation/policy) refuses in one rule, beyond what compiling the
 * rule finds: celPreconditions on a mutate rule, variables in match/exclude, match/exclude blocks its API
 * refuses (./match-checks.ts), an exclude that takes back all the match selects (./match-exclude-conflict.ts), precondition values (./precondition-values.ts), non-string label values
 * in an overlay, a top-level JSON patch that does not decode, and context entries it does not accept.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { replaceVariables } from '../context/variable-syntax.js';
import { messageOf } from '../errors.js';
import { decodePatchValue, parsePatchText } from '../patchers/json6902.js';
import { isSet } from './is-set.js';
import { checkMatchBlocks } from './match-checks.js';
import { checkMatchExcludeConflict } from './match-exclude-conflict.js';
import { checkPreconditionValues } from './precondition-values.js';
import type { ProblemSink } from './sink.js';

/** The rule-level checks, in Kyverno's order; `namespaced`: the rule is a (namespaced) Policy's. */
export function checkRule(rule: JsonObject, path: string, report: ProblemSink, namespaced: boolean): void {
  ruleType(rule, path, report);
  checkMatchBlocks(rule, path, namespaced, report);
  checkMatchExcludeConflict(rule, path, report);
  checkPreconditionValues(rule, path, report);
  celPreconditionsOnMutate(rule, path, report);
  selectionVariables(rule, path, report);
  labelValues(rule, path, report);
  jsonPatchText(rule, path, report);
  patchKinds(rule, path, report);
}

/**
 * Kyverno's Rule.ValidateRuleType (api/kyverno/v1/rule_types.go): a rule does exactly one of mutate,
 * validate, generate and verifyImages, each counted when it is not Go's zero value (`mutate: {}`,
 * `patchStrategicMerge: null` or an empty `patchesJson6902` alone count as nothing). A rule doing
 * nothing would otherwise fail every request it matches.
 */
function ruleType(rule: JsonObject, path: string, report: ProblemSink): void {
  const name = getOwn(rule, 'name');
  const ruleName = typeof name === 'string' ? name : '';
  const images = getOwn(rule, 'verifyImages');
  const count =
    ['mutate', 'validate', 'generate'].filter((k) => notZero(getOwn(rule, k))).length + (Array.isArray(images) && images.some(notZero) ? 1 : 0);
  if (count === 0) {
    report.error(path, `No operation defined in the rule '${ruleName}'.(supported operations: mutate,validate,generate,verifyImages)`);
  } else if (count > 1) {
    report.error(path, `Multiple operations defined in the rule '${ruleName}', only one operation (mutate,validate,generate,verifyImages) is allowed per rule`);
  }
}

/** An operation object holding a member Go would not decode to a zero value (null, false, "", 0). */
function notZero(value: JsonValue | undefined): boolean {
  if (!isJsonObject(value)) return false;
  return Object.values(value).some((v) => v !== null && v !== false && v !== '' && v !== 0);
}

const ONE_OF_THREE = 'only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed';
const ONE_OF_TWO = 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed';

/**
 * Kyverno's mutate rule validation (pkg/policy/mutate/validate.go): a rule patches one way, by foreach,
 * a strategic merge or a JSON patch, and every foreach entry without a nested foreach by exactly one
 * of the two patches. (An entry with a nested foreach and declarations of its own is refused when the
 * rule compiles.)
 */
function patchKinds(rule: JsonObject, path: string, report: ProblemSink): void {
  const mutate = getOwn(rule, 'mutate');
  if (!isJsonObject(mutate) || !isSet(mutate)) return;
  const foreach = getOwn(mutate, 'foreach');
  if (Array.isArray(foreach) && foreach.length > 0) {
    if (patchCount(mutate) > 0) report.error(`${path}.mutate.foreach`, ONE_OF_THREE);
    else foreachPatchKinds(foreach, `${path}.mutate.foreach`, report);
    return;
  }
  if (patchCount(mutate) > 1) report.error(`${path}.mutate`, ONE_OF_TWO);
}

/** Kyverno stops at the first entry holding a nested foreach and checks only that nested list. */
function foreachPatchKinds(entries: readonly JsonValue[], path: string, report: ProblemSink): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!isJsonObject(entry)) continue;
    const nested = getOwn(entry, 'foreach');
    if (Array.isArray(nested) && nested.length > 0) return foreachPatchKinds(nested, `${path}[${i}].foreach`, report);
    if (patchCount(entry) !== 1) return report.error(`${path}[${i}]`, ONE_OF_TWO);
  }
}

/** How many of the two patches a rule or foreach entry holds (a strategic merge not null, a JSON patch text not empty). */
function patchCount(holder: JsonObject): number {
  const psm = getOwn(holder, 'patchStrategicMerge');
  const json = getOwn(holder, 'patchesJson6902');
  return (psm !== undefined && psm !== null ? 1 : 0) + (json !== undefined && json !== null && json !== '' ? 1 : 0);
}

/**
 * Kyverno refuses `celPreconditions` on a mutate rule (they belong to validate.cel), except beside a
 * `foreach`, where its check is not reached and the field is ignored, as here.
 */
function celPreconditionsOnMutate(rule: JsonObject, path: string, report: ProblemSink): void {
  const mutate = getOwn(rule, 'mutate');
  const cel = getOwn(rule, 'celPreconditions');
  if (cel === undefined || cel === null || !isJsonObject(mutate) || !isSet(mutate)) return;
  const foreach = getOwn(mutate, 'foreach');
  if (Array.isArray(foreach) && foreach.length > 0) return;
  report.error(`${path}.celPreconditions`, 'celPrecondition can only be used with validate.cel');
}

/**
 * Kyverno refuses `{{ }}` anywhere in a rule's exclude or match block (pkg/validation/policy, "should not
 * have variables in … section"): what a rule selects is decided before any variable is known.
 */
function selectionVariables(rule: JsonObject, path: string, report: ProblemSink): void {
  const section = sectionWithVariables(rule);
  if (section === undefined) return;
  const name = getOwn(rule, 'name');
  report.error(`${path}.${section}`, `rule "${typeof name === 'string' ? name : ''}" should not have variables in ${section} section`);
}

/** Whether the rule's exclude or match block holds `{{ }}` (escaped ones too, as Kyverno looks at its JSON). */
export function selectionHasVariables(rule: JsonObject): boolean {
  return sectionWithVariables(rule) !== undefined;
}

function sectionWithVariables(rule: JsonObject): 'exclude' | 'match' | undefined {
  for (const section of ['exclude', 'match'] as const) {
    const block = getOwn(rule, section);
    if (block !== undefined && /\{\{[^{}]*\}\}/.test(JSON.stringify(block))) return section;
  }
  return undefined;
}

/**
 * Kyverno refuses a strategic-merge overlay whose `metadata.labels` / `metadata.annotations` (or those of
 * `spec.template.metadata`) hold a value that is not a string, null included (pkg/validation/policy
 * isLabelAndAnnotationsString): it checks the rule's overlay, or the first foreach entry's. Kyverno
 * looks at whichever of `metadata` and `spec` its map iteration meets first; here both must pass.
 */
function labelValues(rule: JsonObject, path: string, report: ProblemSink): void {
  const mutate = getOwn(rule, 'mutate');
  if (!isJsonObject(mutate)) return;
  const foreach = getOwn(mutate, 'foreach');
  let overlay = getOwn(mutate, 'patchStrategicMerge');
  if (Array.isArray(foreach)) {
    const first = foreach.find((f) => isJsonObject(f) && isJsonObject(getOwn(f, 'patchStrategicMerge')));
    overlay = first === undefined ? undefined : getOwn(first as JsonObject, 'patchStrategicMerge');
  }
  if (!isJsonObject(overlay)) return;
  const spec = getOwn(overlay, 'spec');
  const template = isJsonObject(spec) ? getOwn(spec, 'template') : undefined;
  const metadatas = [getOwn(overlay, 'metadata'), isJsonObject(template) ? getOwn(template, 'metadata') : undefined];
  for (const metadata of metadatas) {
    if (!isJsonObject(metadata)) continue;
    for (const key of ['labels', 'annotations']) {
      const values = getOwn(metadata, key);
      if (isJsonObject(values) && Object.values(values).some((v) => typeof v !== 'string')) {
        report.error(`${path}.mutate`, 'labels and annotations supports only string values, "use double quotes around the non string values"');
        return;
      }
    }
  }
}

/**
 * Kyverno decodes a rule's top-level `patchesJson6902` when the policy is created, each variable standing
 * in as one word and escaped `\{{ }}` left as written (pkg/validation/policy validateJSONPatch): text
 * that is no list of operations, an unknown op, a missing `value`, or a path not starting with `/`
 * refuses the policy. A `required` finding: a policy set refuses the policy; run directly, the rule
 * fails when reached, as before.
 */
function jsonPatchText(rule: JsonObject, path: string, report: ProblemSink): void {
  const mutate = getOwn(rule, 'mutate');
  const text = isJsonObject(mutate) ? getOwn(mutate, 'patchesJson6902') : undefined;
  if (typeof text !== 'string' || text.trim() === '') return;
  const at = `${path}.mutate.patchesJson6902`;
  try {
    const parsed = parsePatchText(replaceVariables(text, 'kyvernojsonpatchvariable'));
    const ops = decodePatchValue(parsed);
    const relative = ops.find((op) => !op.path.startsWith('/'));
    if (relative) report.find(at, `path must begin with a forward slash: ${relative.path} (Kyverno refuses the policy)`, 'required');
    // validateJSONPatch asks every op but remove/move/copy for its value: a `test` without one, which
    // the patcher would compare with null, is refused too.
    else if (Array.isArray(parsed) && parsed.some((op) => isJsonObject(op) && getOwn(op, 'op') === 'test' && getOwn(op, 'value') === undefined)) {
      report.find(at, `invalid value: ${path}: operation, missing value field: missing value (Kyverno refuses the policy)`, 'required');
    }
  } catch (error) {
    report.find(at, `${messageOf(error)} (Kyverno refuses the policy)`, 'required');
  }
}

/** Names a context entry may not take: the variables Kyverno defines itself. */
const PREDEFINED_VARIABLES = ['images', 'request', 'serviceAccountName', 'serviceAccountNamespace', 'element', 'elementIndex'];

/**
 * What Kyverno's policy validation (validateRuleContext) refuses in a rule's own context entries, beyond
 * what compileContext checks for every entry: a name that is, or starts with, a predefined variable
 * (`request`, `images.x`), a variable `default` without a `jmesPath`, a configMap without a namespace.
 */
export function checkRuleContext(raw: JsonValue | undefined, path: string, report: ProblemSink): void {
  if (!Array.isArray(raw)) return;
  raw.forEach((entry, i) => {
    if (!isJsonObject(entry)) return;
    const at = `${path}[${i}]`;
    const name = getOwn(entry, 'name');
    const taken = typeof name === 'string' ? PREDEFINED_VARIABLES.find((v) => name === v || name.startsWith(`${v}.`)) : undefined;
    if (taken) report.error(`${at}.name`, `entry name ${name} is invalid as it conflicts with a pre-defined variable ${taken}`);
    const variable = getOwn(entry, 'variable');
    if (isJsonObject(variable) && getOwn(variable, 'default') !== undefined && getOwn(variable, 'default') !== null) {
      const jmesPath = getOwn(variable, 'jmesPath');
      if (typeof jmesPath !== 'string' || jmesPath === '') report.error(`${at}.variable.default`, 'a variable must define a default value only when a jmesPath expression is defined');
    }
    const configMap = getOwn(entry, 'configMap');
    if (isJsonObject(configMap)) {
      const namespace = getOwn(configMap, 'namespace');
      if (namespace === undefined || namespace === null || namespace === '') report.error(`${at}.configMap.namespace`, 'a namespace is required for configMap context entry');
    }
  });
}

