/**
 * What Kyverno's policy validation (pkg/validation/policy) refuses of a policy as a whole: where it may
 * run (admission, background), what background mode forbids, rules that select every kind, and a
 * ClusterPolicy with a namespace.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { backgroundModeProblem } from './background-mode.js';
import { isSet } from './is-set.js';
import type { ProblemSink } from './sink.js';
import { wildcardKindsProblem } from './wildcard-kinds.js';

/** The policy-level checks; each reports its first problem. */
export function checkPolicy(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): void {
  const metadata = getOwn(document, 'metadata');
  const namespace = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  if (getOwn(document, 'kind') === 'ClusterPolicy' && typeof namespace === 'string' && namespace !== '') {
    report.error('metadata.namespace', 'A clusterpolicy should not have the namespace defined');
  }
  processingProblems(spec, rules, report);
  for (const problem of [backgroundModeProblem(document, spec, rules), wildcardKindsProblem(spec, rules)]) {
    if (problem) report.error(problem.path, problem.message);
  }
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

