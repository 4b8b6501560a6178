/**
 * What a MatchResources' resourceRules can match, summed up once per set: the operations, groups,
 * versions and `res[/sub]` entries of all its rules together. A request whose operation, group, version
 * or resource/subresource no rule lists (nor `*`) matches none of the rules, which `matchResources`
 * answers `{ matches: false }` without an error (see `surelyMisses`); a request that passes may still
 * miss, and the exact matcher decides. Why: in a set of 300 policies a node Lease review matches none of,
 * the exact matcher cost ~3 k instructions per policy (cachegrind, bench/profile-platform.ts lease-platform),
 * 24 % of that review.
 */
import type { GroupVersionResource } from '../admission/index.js';
import type { MatchResources, NamedRuleWithOperations } from './types.js';

/** One dimension of the rules: the values listed, or `any` when one rule lists `*`. */
interface Listed {
  any: boolean;
  values: Set<string>;
}

export interface RuleFilter {
  readonly operations: Listed;
  readonly groups: Listed;
  readonly versions: Listed;
  /** Resource part of each `res[/sub]` entry (`*` included) → its subresource parts (`*`, or "" when none). */
  readonly resources: Map<string, Set<string>>;
}

function listed(lists: readonly (readonly string[])[]): Listed | undefined {
  const out: Listed = { any: false, values: new Set() };
  for (const list of lists) {
    if (!Array.isArray(list)) return undefined;
    for (const v of list) {
      if (typeof v !== 'string') return undefined;
      if (v === '*') out.any = true;
      out.values.add(v);
    }
  }
  return out;
}

/**
 * The filter of `mr`'s resourceRules, or undefined when it cannot answer exactly: no resourceRules (they
 * then match every request), or values that are not strings (left to the exact matcher).
 */
export function ruleFilter(mr: MatchResources): RuleFilter | undefined {
  const rules: readonly NamedRuleWithOperations[] = mr.resourceRules;
  if (!Array.isArray(rules) || rules.length === 0) return undefined;
  const operations = listed(rules.map((r) => r.operations));
  const groups = listed(rules.map((r) => r.apiGroups));
  const versions = listed(rules.map((r) => r.apiVersions));
  if (!operations || !groups || !versions) return undefined;
  const resources = new Map<string, Set<string>>();
  for (const rule of rules) {
    if (!Array.isArray(rule.resources)) return undefined;
    for (const entry of rule.resources) {
      if (typeof entry !== 'string') return undefined;
      // As resourceMatches splits an entry: at its first slash; no slash is subresource "".
      const slash = entry.indexOf('/');
      const res = slash < 0 ? entry : entry.slice(0, slash);
      const sub = slash < 0 ? '' : entry.slice(slash + 1);
      let subs = resources.get(res);
      if (!subs) resources.set(res, (subs = new Set()));
      subs.add(sub);
    }
  }
  return { operations, groups, versions, resources };
}

function has(l: Listed, value: string): boolean {
  return l.any || l.values.has(value);
}

function resourceListed(f: RuleFilter, resource: string, subResource: string): boolean {
  const own = f.resources.get(resource);
  if (own && (own.has(subResource) || own.has('*'))) return true;
  const any = f.resources.get('*');
  return any !== undefined && (any.has(subResource) || any.has('*'));
}

/** Whether no rule of the filter's resourceRules matches (operation, resource, subResource), whatever the scope and names. */
function noRuleMatches(f: RuleFilter, operation: string, resource: GroupVersionResource, subResource: string): boolean {
  return (
    !has(f.groups, resource.group) ||
    !has(f.operations, operation) ||
    !resourceListed(f, resource.resource, subResource) ||
    !has(f.versions, resource.version)
  );
}

/**
 * Whether `matchResources(mr, attr)` surely answers `{ matches: false }` without an error: no resourceRule
 * matches the request's own resource, and (matchPolicy Equivalent) the request's resource has no
 * equivalent but itself (`ownOnly`), so neither the rules nor the excludeResourceRules are tried with
 * another resource (the only way they return an error). The selectors are then never decisive: their
 * errors surface only when the rules match.
 */
export function surelyMisses(
  mr: MatchResources,
  f: RuleFilter | undefined,
  operation: string,
  resource: GroupVersionResource,
  subResource: string,
  ownOnly: boolean,
): boolean {
  if (f === undefined) return false;
  if (mr.matchPolicy === 'Equivalent' && !ownOnly) return false;
  return noRuleMatches(f, operation, resource, subResource);
}
