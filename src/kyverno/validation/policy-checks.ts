/**
 * What Kyverno's policy validation (pkg/validation/policy) refuses of a policy as a whole: where it may
 * run (admission, background), mutate-existing rules without targets, what background mode forbids,
 * variables it does not know, rules that select every kind, a ClusterPolicy with a namespace, and the
 * name lengths and annotation its API types refuse (api-limits.ts).
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { apiLimitProblems } from './api-limits.js';
import { fieldPath } from '../check-expressions.js';
import { backgroundModeProblem, policyVariables, userVariablesProblem } from './background-mode.js';
import { invalidVariablesProblem, type VariableProblem } from './invalid-variables.js';
import { isSet } from './is-set.js';
import { mutateTargetsProblems } from './mutate-targets.js';
import type { ProblemSink } from './sink.js';
import { wildcardKindsProblem } from './wildcard-kinds.js';

/** The policy-level checks; each reports its first problem. */
export function checkPolicy(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): void {
  const metadata = getOwn(document, 'metadata');
  const namespace = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  if (getOwn(document, 'kind') === 'ClusterPolicy' && typeof namespace === 'string' && namespace !== '') {
    report.error('metadata.namespace', 'A clusterpolicy should not have the namespace defined');
  }
  apiLimitProblems(document, spec, rules, report);
  processingProblems(spec, rules, report);
  for (const problem of mutateTargetsProblems(spec, rules)) report.error(problem.path, problem.message);
  // Kyverno stops at the first of these; the on-update check repeats the variable checks.
  const variablesRefused = variableProblems(document, spec, rules, report);
  const wildcard = wildcardKindsProblem(spec, rules);
  if (wildcard) report.error(wildcard.path, wildcard.message);
  if (!variablesRefused) onPolicyUpdateProblems(document, spec, rules, report);
}

/**
 * Kyverno's ValidateVariables: what background mode forbids, then the first variable it does not know
 * (invalid-variables.ts), in background mode with the stricter set.
 */
function variableProblems(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): boolean {
  const background = backgroundModeProblem(document, spec, rules);
  if (background) {
    report.error(background.path, background.message);
    return true;
  }
  return reportVariable(invalidVariablesProblem(rules, getOwn(spec, 'background') !== false), 'policy contains invalid variables: ', report);
}

/**
 * Kyverno's ValidateOnPolicyUpdate, run when a mutate rule (or, for a rule that does not say, the
 * policy) sets `mutateExistingOnPolicyUpdate`: a policy with variables must pass the background-mode
 * variable checks even when it is not in background mode.
 */
function onPolicyUpdateProblems(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): void {
  const onUpdate = rules.some((r) => {
    const mutate = isJsonObject(r) ? getOwn(r, 'mutate') : undefined;
    if (!isJsonObject(mutate) || !isSet(mutate)) return false;
    const own = getOwn(mutate, 'mutateExistingOnPolicyUpdate');
    return own === undefined || own === null ? getOwn(spec, 'mutateExistingOnPolicyUpdate') === true : own === true;
  });
  if (!onUpdate || policyVariables(document).length === 0) return;
  if (reportVariable(invalidVariablesProblem(rules, true), 'update event, policy contains invalid variables: ', report)) return;
  const user = userVariablesProblem(document, rules, 'spec.mutateExistingOnPolicyUpdate');
  if (user) {
    report.error(user.path, `only select variables are allowed in on policy update. Set spec.mutateExistingOnPolicyUpdate=false to disable update policy mode for this policy rule: ${user.message} `);
  }
}

/**
 * How a variable Kyverno refuses is reported: findings, so that a policy compiled and run directly
 * behaves as before (the variable fails its rule when reached) and the policy set refuses it. An
 * unknown variable is a `variable` finding (values may define it in the CLI); one that is no JMESPath
 * an `expression` finding, as the expression check reports them, and only once: that check may have
 * reported the same field already; anything else (a reference that does not resolve, a variable in an
 * image reference) `required`.
 */
function reportVariable(problem: VariableProblem | undefined, prefix: string, report: ProblemSink): boolean {
  if (!problem) return false;
  const path = fieldPath(`spec.rules[${problem.rule}]`, problem.at);
  const message = prefix + problem.message;
  if (problem.cause === 'unknown') report.find(path, message, 'variable');
  else if (problem.cause === 'other') report.find(path, message, 'required');
  else if (!report.hasFinding(path, 'expression')) report.find(path, message, 'expression');
  return true;
}

/**
 * Where a policy may run, as Kyverno's policy validation decides it (pkg/validation/policy): not
 * nowhere (admission and background both off), and only validate rules may run in the background
 * alone; Kyverno refuses a policy with mutate, generate or verifyImages rules and `admission: false`.
 */
function processingProblems(spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): void {
  if (getOwn(spec, 'admission') !== false) return;
  if (getOwn(spec, 'background') === false) {
    report.error('spec.admission', 'disabling both admission and background processing is not allowed');
    return;
  }
  const kept = rules.some((r) => isJsonObject(r) && ['mutate', 'generate', 'verifyImages'].some((k) => isSet(getOwn(r, k))));
  if (kept) report.error('spec.admission', 'disabling admission processing is only allowed with validation policies');
}

