/**
 * MatchResources against a request (`pkg/admission/plugin/policy/matching/matching.go` and the
 * namespace/object selector predicates). The order of the steps decides which errors surface: selector
 * errors are returned only when the resource rules match.
 */
import type { GroupVersionKind, GroupVersionResource } from '../admission/index.js';
import { isJsonObject, ownMember, type JsonObject, type JsonValue } from '../json/index.js';
import { sameResource, type EquivalenceProvider } from './equivalence.js';
import { toSelector, type Labels, type Selector } from './labels.js';
import { namedRuleMatches, type RuleAttributes } from './rules.js';
import type { MatchResources, NamedRuleWithOperations } from './types.js';

/** What the matcher looks at: what a rule looks at (read as is, no copy), plus the kind and objects. */
export interface MatchAttributes extends RuleAttributes {
  kind: GroupVersionKind;
  object: JsonValue | null;
  oldObject: JsonValue | null;
}

/** How the matcher finds a namespace's labels: the Namespace object, or undefined when unknown. */
export type NamespaceLookup = (name: string) => JsonObject | undefined;

export type MatchErrorKind = 'NotFound' | 'Internal' | 'Invalid';

export interface MatchError {
  kind: MatchErrorKind;
  message: string;
}

export type MatchResult =
  | { matches: true; resource: GroupVersionResource; kind: GroupVersionKind }
  | { matches: false; error?: MatchError };

export interface MatcherContext {
  equivalence: EquivalenceProvider;
  namespaces: NamespaceLookup;
  /**
   * A namespace the lookup does not know is matched as Kyverno's CEL matcher matches one it cannot find:
   * by a stand-in whose only label is `kubernetes.io/metadata.name` (the Kyverno CLI's behaviour). Off by
   * default: the webhook cannot tell a namespace with no labels from one it was not given (DESIGN.md).
   */
  namespaceStandIn?: boolean;
}

/** Labels of an object with ObjectMeta; undefined when the value is not such an object. */
export function objectLabels(obj: JsonValue | null | undefined): Labels | undefined | null {
  if (!isJsonObject(obj)) return null;
  const meta = ownMember(obj, 'metadata');
  if (!isJsonObject(meta)) return null;
  const labels = ownMember(meta, 'labels');
  return isJsonObject(labels) ? (labels as Labels) : undefined;
}

function internal(message: string): MatchError {
  return { kind: 'Internal', message: `Internal error occurred: ${message}` };
}

function namespaceLabels(attr: MatchAttributes, ctx: MatcherContext): { labels?: Labels; error?: MatchError } {
  // A create/update of a Namespace is judged by its new labels (the stored one may not exist yet).
  if (attr.resource.resource === 'namespaces' && attr.subResource === '' && (attr.operation === 'CREATE' || attr.operation === 'UPDATE')) {
    const labels = objectLabels(attr.object);
    if (labels === null) return { error: internal('object does not implement the Object interfaces') };
    return { labels };
  }
  const ns = ctx.namespaces(attr.namespace);
  if (!ns && ctx.namespaceStandIn) return { labels: { 'kubernetes.io/metadata.name': attr.namespace } };
  if (!ns) {
    return {
      error: {
        kind: 'NotFound',
        message: `namespaces "${attr.namespace}" not found (no Namespace object named "${attr.namespace}" is in the policy sources, so namespaceSelector cannot be evaluated)`,
      },
    };
  }
  return { labels: objectLabels(ns) ?? undefined };
}

function matchNamespaceSelector(mr: MatchResources, attr: MatchAttributes, ctx: MatcherContext): { matches: boolean; error?: MatchError } {
  // Cluster-scoped objects are never excluded by a namespaceSelector.
  if (attr.namespace === '' && attr.resource.resource !== 'namespaces') return { matches: true };
  const parsed = toSelector(mr.namespaceSelector);
  if (parsed.error !== undefined) return { matches: false, error: internal(parsed.error) };
  if (parsed.selector.empty) return { matches: true };
  const { labels, error } = namespaceLabels(attr, ctx);
  if (error) return { matches: false, error };
  return { matches: parsed.selector.matches(labels) };
}

function selectsObject(selector: Selector, obj: JsonValue | null): boolean {
  if (obj === null) return false;
  const labels = objectLabels(obj);
  if (labels === null) return false; // no ObjectMeta (e.g. PodProxyOptions on CONNECT)
  return selector.matches(labels);
}

function matchObjectSelector(mr: MatchResources, attr: MatchAttributes): { matches: boolean; error?: MatchError } {
  const parsed = toSelector(mr.objectSelector);
  if (parsed.error !== undefined) return { matches: false, error: internal(parsed.error) };
  if (parsed.selector.empty) return { matches: true };
  return { matches: selectsObject(parsed.selector, attr.object) || selectsObject(parsed.selector, attr.oldObject) };
}

type RulesResult =
  | { matches: true; resource: GroupVersionResource; kind: GroupVersionKind }
  | { matches: false; error?: MatchError };

/** A miss without error (shared: results are only read). */
const NO_RULE_MATCHES: RulesResult = { matches: false };

function matchRules(rules: readonly NamedRuleWithOperations[], matchPolicy: string | null, attr: MatchAttributes, ctx: MatcherContext): RulesResult {
  // No rules (most excludeResourceRules): no match, and no equivalent resources to look up for none.
  if (rules.length === 0) return NO_RULE_MATCHES;
  // Index loops: a compiled policy's rule lists are frozen, which for-of iterates slowly.
  for (let i = 0; i < rules.length; i++) {
    if (namedRuleMatches(rules[i], attr)) return { matches: true, resource: attr.resource, kind: attr.kind };
  }
  if (matchPolicy !== 'Equivalent') return NO_RULE_MATCHES;
  const equivalents = ctx.equivalence.equivalentResources(attr.resource, attr.subResource);
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      if (sameResource(equivalent, attr.resource)) continue;
      if (!namedRuleMatches(rule, { ...attr, resource: equivalent })) continue;
      const kind = ctx.equivalence.kindFor(equivalent, attr.subResource);
      if (!kind || !kind.kind) {
        const gvr = `${equivalent.group}/${equivalent.version}, Resource=${equivalent.resource}`;
        return { matches: false, error: { kind: 'Internal', message: `unable to convert to ${gvr}: unknown kind` } };
      }
      return { matches: true, resource: equivalent, kind };
    }
  }
  return NO_RULE_MATCHES;
}

export function matchResources(mr: MatchResources, attr: MatchAttributes, ctx: MatcherContext): MatchResult {
  const ns = matchNamespaceSelector(mr, attr, ctx);
  if (!ns.matches && !ns.error) return { matches: false };
  const obj = matchObjectSelector(mr, attr);
  if (!obj.matches && !obj.error) return { matches: false };
  const excluded = matchRules(mr.excludeResourceRules, mr.matchPolicy, attr, ctx);
  if (excluded.matches) return { matches: false };
  if (excluded.error) return { matches: false, error: excluded.error };
  const hit: RulesResult =
    mr.resourceRules.length === 0
      ? { matches: true, resource: attr.resource, kind: attr.kind }
      : matchRules(mr.resourceRules, mr.matchPolicy, attr, ctx);
  if (!hit.matches) return hit.error ? { matches: false, error: hit.error } : { matches: false };
  if (ns.error) return { matches: false, error: ns.error };
  if (obj.error) return { matches: false, error: obj.error };
  return hit;
}
