/**
 * One admission rule against one request (`pkg/admission/plugin/webhook/predicates/rules`): scope,
 * operation, group, version, resource/subresource and, for named rules, the object name.
 */
import type { GroupVersionResource } from '../admission/index.js';
import type { NamedRuleWithOperations, RuleWithOperations } from './types.js';

/** What a rule looks at. `resource` may be an equivalent of the request's own (matchPolicy Equivalent). */
export interface RuleAttributes {
  operation: string;
  resource: GroupVersionResource;
  subResource: string;
  namespace: string;
  name: string;
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

/** A named rule also requires the request's name to be listed (when any names are listed). */
export function namedRuleMatches(rule: NamedRuleWithOperations, attr: RuleAttributes): boolean {
  if (rule.resourceNames.length > 0 && !rule.resourceNames.includes(attr.name)) return false;
  return ruleMatches(rule, attr);
}
