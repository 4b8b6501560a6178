/**
 * What Kyverno refuses in a rule's `match` and `exclude` blocks when the policy is created, beyond a
 * match filter without kinds (../match/compile-match.ts): its API validation (api/kyverno/v1
 * MatchResources.Validate, ResourceDescription.Validate, UserInfo.Validate) and its policy validation
 * (pkg/validation/policy validateResources). Each is a `required` finding: a policy set refuses the
 * policy, as Kyverno does; compiled and run directly it behaves as before (such a block matches nothing,
 * or what its other fields select).
 */
import { hasWildcard } from '../../go/index.js';
import { isQualifiedName, isValidLabelValue } from '../../k8s/index.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import type { ProblemSink } from './sink.js';

/** `namespaced`: the rule belongs to a Policy (namespaced), not a ClusterPolicy. */
export function checkMatchBlocks(rule: JsonObject, path: string, namespaced: boolean, report: ProblemSink): void {
  for (const section of ['match', 'exclude'] as const) {
    const block = getOwn(rule, section);
    if (isJsonObject(block)) checkBlock(block, `${path}.${section}`, section, namespaced, report);
  }
}

function checkBlock(block: JsonObject, path: string, section: 'match' | 'exclude', namespaced: boolean, report: ProblemSink): void {
  const any = listOf(getOwn(block, 'any'));
  const all = listOf(getOwn(block, 'all'));
  // Its validation refuses both lists non-empty; its CRD refuses both keys written at all, empty lists too
  // (MatchResources: +kubebuilder:not:={required:{any,all}}; a null is pruned before validation).
  const written = (key: string) => getOwn(block, key) !== undefined && getOwn(block, key) !== null;
  if (written('any') && written('all')) report.find(path, `can't specify any and all together (Kyverno refuses the policy)`, 'required');
  if ((any.length > 0 || all.length > 0) && described(getOwn(block, 'resources'))) {
    report.find(`${path}.resources`, `can't specify any/all together with ${section} resources (Kyverno refuses the policy)`, 'required');
  }
  const filters: [JsonValue, string][] = [
    ...any.map((f, i): [JsonValue, string] => [f, `${path}.any[${i}]`]),
    ...all.map((f, i): [JsonValue, string] => [f, `${path}.all[${i}]`]),
    [block, path],
  ];
  for (const [filter, at] of filters) {
    if (isJsonObject(filter)) checkFilter(filter, at, namespaced, report);
  }
  // validateResources: each filter of the list Kyverno matches with (any, else all) must describe resources.
  if (section === 'match') {
    const listed = any.length > 0 ? any : all;
    listed.forEach((f, i) => {
      if (isJsonObject(f) && !described(getOwn(f, 'resources')) && !hasUserInfo(f)) {
        report.find(`${path}.${any.length > 0 ? 'any' : 'all'}[${i}].resources`, 'match resources not specified (Kyverno refuses the policy)', 'required');
      }
    });
  }
}

/** One filter: its resource description and its user info (the block itself is the legacy filter). */
function checkFilter(filter: JsonObject, path: string, namespaced: boolean, report: ProblemSink): void {
  const resources = getOwn(filter, 'resources');
  if (isJsonObject(resources)) {
    const at = `${path}.resources`;
    const name = getOwn(resources, 'name');
    if (typeof name === 'string' && name !== '' && listOf(getOwn(resources, 'names')).length > 0) {
      report.find(at, 'Both name and names can not be specified together (Kyverno refuses the policy)', 'required');
    }
    const selector = getOwn(resources, 'selector');
    if (isJsonObject(selector) && !selectorHasWildcard(selector)) {
      const invalid = invalidLabel(selector);
      if (invalid !== undefined) report.find(`${at}.selector`, `${invalid} (Kyverno refuses the policy)`, 'required');
      else if (!selectorHasRequirements(selector)) {
        report.find(`${at}.selector`, 'The requirements are not specified in selector (Kyverno refuses the policy)', 'required');
      }
    }
    if (namespaced && listOf(getOwn(resources, 'namespaces')).length > 0) {
      report.find(`${at}.namespaces`, 'Filtering namespaces not allowed in namespaced policies (Kyverno refuses the policy)', 'required');
    }
  }
  listOf(getOwn(filter, 'subjects')).forEach((subject, i) => {
    if (!isJsonObject(subject) || getOwn(subject, 'kind') !== 'ServiceAccount') return;
    const namespace = getOwn(subject, 'namespace');
    if (typeof namespace !== 'string' || namespace === '') {
      report.find(`${path}.subjects[${i}].namespace`, 'namespace is required when Kind is ServiceAccount (Kyverno refuses the policy)', 'required');
    }
  });
  listOf(getOwn(filter, 'roles')).forEach((role, i) => {
    if (typeof role === 'string' && role.split(':').length !== 2) {
      report.find(`${path}.roles[${i}]`, `Role is expected to be in namespace:name format: ${role} (Kyverno refuses the policy)`, 'required');
    }
  });
}

function listOf(value: JsonValue | undefined): readonly JsonValue[] {
  return Array.isArray(value) ? value : [];
}

/**
 * A resource description Kyverno's Go struct holds something in (not equal to the zero value): a key
 * not null; an empty list or map is something there (Go decodes `[]` to a non-nil slice).
 */
function described(resources: JsonValue | undefined): boolean {
  return isJsonObject(resources) && Object.values(resources).some((v) => v !== null);
}

function hasUserInfo(filter: JsonObject): boolean {
  return ['subjects', 'roles', 'clusterRoles'].some((k) => listOf(getOwn(filter, k)).length > 0);
}

/** kubeutils.LabelSelectorContainsWildcard: a matchLabels key or value with `*` or `?`. */
function selectorHasWildcard(selector: JsonObject): boolean {
  const labels = getOwn(selector, 'matchLabels');
  return isJsonObject(labels) && Object.entries(labels).some(([k, v]) => hasWildcard(k) || (typeof v === 'string' && hasWildcard(v)));
}

/**
 * The first key or value of a selector that metav1.LabelSelectorAsSelector refuses (labels.NewRequirement:
 * a qualified name, label values), as text; the operators and value counts are compile errors already.
 */
function invalidLabel(selector: JsonObject): string | undefined {
  const check = (key: string, values: readonly JsonValue[]): string | undefined => {
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) return `key: Invalid value: ${JSON.stringify(key)}: ${keyErrors.join('; ')}`;
    for (const value of values) {
      const valueErrors = typeof value === 'string' ? isValidLabelValue(value) : [];
      if (valueErrors.length > 0) return `values: Invalid value: ${JSON.stringify(value)}: ${valueErrors.join('; ')}`;
    }
    return undefined;
  };
  const labels = getOwn(selector, 'matchLabels');
  if (isJsonObject(labels)) {
    for (const key of Object.keys(labels).sort()) {
      const found = check(key, [labels[key]]);
      if (found !== undefined) return found;
    }
  }
  for (const expression of listOf(getOwn(selector, 'matchExpressions'))) {
    if (!isJsonObject(expression)) continue;
    const key = getOwn(expression, 'key');
    const found = typeof key === 'string' ? check(key, listOf(getOwn(expression, 'values'))) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** metav1.LabelSelectorAsSelector gives no requirement for a selector without labels or expressions. */
function selectorHasRequirements(selector: JsonObject): boolean {
  const labels = getOwn(selector, 'matchLabels');
  return (isJsonObject(labels) && Object.keys(labels).length > 0) || listOf(getOwn(selector, 'matchExpressions')).length > 0;
}
