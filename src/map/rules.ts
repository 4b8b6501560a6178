/**
 * One admission rule against one request (`pkg/admission/plugin/webhook/predicates/rules`): scope,
 * operation, group, version, resource/subresource and, for named rules, the object name.
 */
import type { GroupVersionResource } from '../admission/index.js';
import { getOwn, isJsonObject, type JsonValue } from '../json/index.js';
import type { NamedRuleWithOperations, RuleWithOperations } from './types.js';

/** What a rule looks at. `resource` may be an equivalent of the request's own (matchPolicy Equivalent). */
export interface RuleAttributes {
  operation: string;
  resource: GroupVersionResource;
  subResource: string;
  namespace: string;
  name: string;
  /** The request's object, read by a rule that matches names by generateName (see GenerateNameRule). */
  object?: JsonValue | null;
}

/**
 * A Kyverno MutatingPolicy's rule (src/mpol marks them): when it lists names and the request has none (a
 * CREATE relying on generateName), it matches when the object's `metadata.generateName` starts with one of
 * them (Kyverno's pkg/cel/matching/matcher.go matchesGeneratedName). kube-apiserver's matcher compares
 * the empty name only, so a MutatingAdmissionPolicy's rules are never marked.
 */
export interface GenerateNameRule {
  readonly matchGenerateName?: true;
}

function listMatches(list: readonly string[], value: string): boolean {
  return list.includes('*') || list.includes(value);
}

export function groupMatches(rule: Pick<RuleWithOperations, 'apiGroups'>, attr: RuleAttributes): boolean {
  return listMatches(rule.apiGroups, attr.resource.group);
}

export function versionMatches(rule: Pick<RuleWithOperations, 'apiVersions'>, attr: RuleAttributes): boolean {
  return listMatches(rule.apiVersions, attr.resource.version);
}

export function operationMatches(rule: Pick<RuleWithOperations, 'operations'>, attr: RuleAttributes): boolean {
  return listMatches(rule.operations, attr.operation);
}

/** Each entry is `res[/sub]`; `*` stands for any value of its part, and a missing part is "". */
export function resourceMatches(rule: Pick<RuleWithOperations, 'resources'>, attr: RuleAttributes): boolean {
  for (const entry of rule.resources) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === attr.resource.resource) && (sub === '*' || sub === attr.subResource)) return true;
  }
  return false;
}

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
}

/** The Namespace object itself counts as cluster-scoped although its requests carry a namespace. */
export function scopeMatches(rule: Pick<RuleWithOperations, 'scope'>, attr: RuleAttributes): boolean {
  switch (rule.scope) {
    case undefined:
    case '*':
      return true;
    case 'Namespaced':
      return !isNamespaceResource(attr.resource) && attr.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(attr.resource) || attr.namespace === '';
    default:
      return false;
  }
}

export function ruleMatches(rule: RuleWithOperations, attr: RuleAttributes): boolean {
  return (
    scopeMatches(rule, attr) &&
    operationMatches(rule, attr) &&
    groupMatches(rule, attr) &&
    versionMatches(rule, attr) &&
    resourceMatches(rule, attr)
  );
}

function generateName(object: JsonValue | null | undefined): string {
  const meta = isJsonObject(object) ? getOwn(object, 'metadata') : undefined;
  const value = isJsonObject(meta) ? getOwn(meta, 'generateName') : undefined;
  return typeof value === 'string' ? value : '';
}

function namesMatch(rule: NamedRuleWithOperations & GenerateNameRule, attr: RuleAttributes): boolean {
  if (rule.resourceNames.length === 0) return true;
  if (rule.matchGenerateName && attr.name === '') {
    // No object (nil in Go) matches no name; one without generateName matches an empty name only.
    if (attr.object === null || attr.object === undefined) return false;
    const prefix = generateName(attr.object);
    return rule.resourceNames.some((n) => prefix.startsWith(n));
  }
  return rule.resourceNames.includes(attr.name);
}

/** A named rule also requires the request's name to be listed (when any names are listed). */
export function namedRuleMatches(rule: NamedRuleWithOperations & GenerateNameRule, attr: RuleAttributes): boolean {
  if (!namesMatch(rule, attr)) return false;
  return ruleMatches(rule, attr);
}
