/**
 * What Kyverno's policy validation refuses in background mode (`spec.background`, true unless set to
 * false; pkg/validation/policy/background.go): a background scan has no requester, so a policy that
 * would run there may neither match on `roles`, `clusterRoles` or `subjects` nor use a variable about the
 * requester (`request.userInfo`, `request.roles`, `request.clusterRoles`, `serviceAccountName`,
 * `serviceAccountNamespace`). Kyverno refuses such a policy whole, at its webhook and in its CLI; the
 * variable check is waived when a rule mutates existing resources (`mutate.targets`).
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { findVariables } from '../context/variable-syntax.js';

const PREFIX = 'only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: ';

/** Kyverno's patterns for variables about the requester (the dots are any character, as in Kyverno). */
const USER_VARIABLES = [
  /[^.](serviceAccountName)\b/,
  /[^.](serviceAccountNamespace)\b/,
  /[^.](request.userInfo)\b/,
  /[^.](request.roles)\b/,
  /[^.](request.clusterRoles)\b/,
];

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export interface BackgroundProblem {
  readonly path: string;
  readonly message: string;
}

/** The first thing background mode forbids in a policy document, as Kyverno reports it; none when allowed. */
export function backgroundModeProblem(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[]): BackgroundProblem | undefined {
  if (getOwn(spec, 'background') === false) return undefined;
  const problem = userVariablesProblem(document, rules, 'spec.background');
  return problem && { path: problem.path, message: PREFIX + problem.message };
}

/**
 * Kyverno's containsUserVariables, without its caller's prefix: a rule matching on the requester, or
 * (unless a rule mutates existing resources) a variable about the requester anywhere in the document,
 * reported at `variablePath`.
 */
export function userVariablesProblem(document: JsonObject, rules: readonly JsonValue[], variablePath: string): BackgroundProblem | undefined {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!isJsonObject(rule)) continue;
    const at = userInfoFilter(rule);
    if (at) return { path: `spec.rules[${i}].${at.join('.')}`, message: `invalid variable used at path: spec/rules[${i}]/${at.join('/')}` };
  }
  if (rules.some((r) => isJsonObject(r) && isJsonObject(getOwn(r, 'mutate')) && (getOwn(getOwn(r, 'mutate') as JsonObject, 'targets') ?? null) !== null)) return undefined;
  for (const match of policyVariables(document)) {
    const variable = match[2];
    if (USER_VARIABLES.some((banned) => banned.test(variable))) return { path: variablePath, message: `variable ${variable} is not allowed` };
  }
  return undefined;
}

/** Every variable of the policy document as Kyverno finds them (hasVariables: in its JSON, last-applied annotation blanked). */
export function policyVariables(document: JsonObject): RegExpExecArray[] {
  return findVariables(JSON.stringify(withoutLastApplied(document)));
}

/** Where a rule's match or exclude names roles, clusterRoles or subjects, in Kyverno's order. */
function userInfoFilter(rule: JsonObject): string[] | undefined {
  const match = getOwn(rule, 'match');
  const exclude = getOwn(rule, 'exclude');
  const blocks: [string, JsonValue | undefined, readonly string[]][] = [
    ['match', match, ['any', 'all']],
    ['exclude', exclude, ['all', 'any']],
  ];
  for (const [name, block, lists] of blocks) {
    if (!isJsonObject(block)) continue;
    const own = userInfoField(block);
    if (own) return [name, own];
    for (const list of lists) {
      const filters = getOwn(block, list);
      if (!Array.isArray(filters)) continue;
      for (let j = 0; j < filters.length; j++) {
        const field = isJsonObject(filters[j]) ? userInfoField(filters[j] as JsonObject) : undefined;
        if (field) return [name, `${list}[${j}]`, field];
      }
    }
  }
  return undefined;
}

function userInfoField(filter: JsonObject): string | undefined {
  for (const key of ['roles', 'clusterRoles', 'subjects']) {
    const value = getOwn(filter, key);
    if (Array.isArray(value) && value.length > 0) return key;
  }
  return undefined;
}

/** Kyverno blanks the last-applied annotation before looking for variables. */
function withoutLastApplied(document: JsonObject): JsonValue {
  const metadata = getOwn(document, 'metadata');
  const annotations = isJsonObject(metadata) ? getOwn(metadata, 'annotations') : undefined;
  if (!isJsonObject(annotations) || getOwn(annotations, LAST_APPLIED) === undefined) return document;
  return { ...document, metadata: { ...(metadata as JsonObject), annotations: { ...annotations, [LAST_APPLIED]: '' } } };
}
