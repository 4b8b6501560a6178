/**
 * What a policy set can match, as webhook rules: the API server then calls Amender only for requests
 * some policy may act on. Over-approximates where the rule format cannot express a criterion (names,
 * selectors, exclusions, CEL conditions are checked by Amender itself), never under-approximates.
 *
 * MutatingAdmissionPolicy: a policy acts only through a binding; it covers its matchConstraints
 * resourceRules less DELETE (which its `*` takes in, and the engine never mutates), narrowed by each
 * binding's matchResources resourceRules (intersection) — a policy without bindings covers nothing —
 * less the operations of an excludeResourceRules entry (without resourceNames) that takes a whole rule;
 * other exclusions and resourceNames are left to Amender.
 * A Kyverno MutatingPolicy covers its own matchConstraints (and its autogen variants'), less DELETE,
 * which Kyverno accepts in a rule but the engine never mutates; it asks for no reinvocation (src/mpol
 * runs it as Never, as Kyverno's webhook for MutatingPolicies is registered), while a Kyverno
 * ClusterPolicy/Policy asks for IfNeeded, as Kyverno registers its resource webhooks.
 * Kyverno: each mutate rule of a policy that runs at admission (not `spec.admission: false`, not a
 * mutate-existing `targets` rule) covers its `match`: `any` the union of its filters, `all` their
 * intersection; a filter covers its `kinds` (see kinds.ts) for its `operations`, or CREATE and UPDATE
 * when it names none (Kyverno's own default for mutate), less DELETE and CONNECT, which the engine never
 * mutates. An `exclude` filter of kinds and operations alone takes those out (as Kyverno's webhook
 * does); the rest of `exclude` is left to Amender.
 */
import type { CompiledKyvernoPolicy, CompiledRule } from '../kyverno/index.js';
import type { PolicySet } from '../policyset/index.js';
import { englishPlural, guessResource } from '../k8s/index.js';
import { builtinKindTable, type KindEntry } from './kinds.js';
import { intersectRuleSets, mergeRules, normalizeRule, OPERATIONS, SCOPES, withoutExcludedOperations, type RuleScope, type WebhookRule } from './rules.js';
import { hasWildcard, wildcardMatch } from '../go/index.js';
import { servedVersions, unconvertedVersionWarnings, type VersionedCoverage } from './versions.js';

type MatchBlock = CompiledRule['match'];
type ResourceFilter = NonNullable<MatchBlock['any']>[number];
type KindSelector = NonNullable<ResourceFilter['kinds']>[number];
type NamedRuleWithOperations = NonNullable<PolicySet['mutatingPolicies'][number]['policy']['matchConstraints']>['resourceRules'][number];

export interface PolicyCoverage {
  /** `MutatingAdmissionPolicy/<name>`, `MutatingPolicy/<name>`, `NamespacedMutatingPolicy/<ns>/<name>`, `ClusterPolicy/<name>` or `Policy/<ns>/<name>`. */
  policy: string;
  /** The namespace a Kyverno Policy or NamespacedMutatingPolicy acts in (only there). */
  namespace?: string;
  rules: WebhookRule[];
  failurePolicy: 'Fail' | 'Ignore';
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

export interface DerivedRules {
  /** The union of every policy's coverage, merged. */
  rules: WebhookRule[];
  policies: PolicyCoverage[];
  /** Policies that cover nothing, with why (no binding, admission: false, ...). */
  idle: string[];
  /** Where the rules are wider than the policy, or a resource name was guessed. */
  warnings: string[];
  /** Kinds that could not be turned into resources: the rules would miss them. */
  unresolved: string[];
}

const KYVERNO_DEFAULT_OPERATIONS = ['CREATE', 'UPDATE'];
/** Amender's Kyverno engine mutates only these (DELETE and CONNECT requests are never mutated). */
const KYVERNO_MUTATED_OPERATIONS = ['CREATE', 'UPDATE'];

/**
 * The part of a resource rule that can match a request; undefined when no part can. kube-apiserver refuses
 * a MutatingAdmissionPolicy with values that match nothing, but Kyverno takes them in a MutatingPolicy:
 * an empty version or resource, an operation or scope it does not know, an empty list. Left in, they would
 * make rules the API server refuses.
 */
function matchableRule(r: NamedRuleWithOperations, mutated: readonly string[]): WebhookRule | undefined {
  // `*` stands for the operations the engine mutates: sent DELETEs would only cost a call (and, under
  // failurePolicy Fail, block every deletion while Amender is unreachable).
  const operations = r.operations.flatMap((o) => (o === '*' ? mutated : mutated.includes(o) ? [o] : []));
  const apiVersions = r.apiVersions.filter((v) => v !== '');
  const resources = r.resources.filter((x) => x !== '');
  const scope = r.scope ?? '*';
  if (!(SCOPES as readonly string[]).includes(scope) || operations.length === 0 || r.apiGroups.length === 0 || apiVersions.length === 0 || resources.length === 0) return undefined;
  return normalizeRule({ operations, apiGroups: r.apiGroups, apiVersions, resources, scope: scope as RuleScope });
}

/**
 * The operations a rule is sent for: the engine never mutates a DELETE request (src/map/dispatch.ts
 * isMutableRequest), so neither policy kind is sent one. A MutatingAdmissionPolicy reaches DELETE only
 * through `*` (kube-apiserver refuses DELETE written out); a Kyverno MutatingPolicy may also name it
 * (Kyverno accepts it). A binding's rules only narrow, so they keep every operation.
 */
const ALL_OPERATIONS: readonly string[] = OPERATIONS;
const MUTATED_OPERATIONS: readonly string[] = OPERATIONS.filter((o) => o !== 'DELETE');

const matchable = (rules: readonly NamedRuleWithOperations[], mutated = ALL_OPERATIONS): WebhookRule[] => rules.flatMap((r) => matchableRule(r, mutated) ?? []);

/**
 * excludeResourceRules that exclude every request they match: those without resourceNames (kube-apiserver's
 * matchesResourceRules; with names, only the objects named). A rule they cover in full loses their operations.
 */
const wholeExclusions = (rules: readonly NamedRuleWithOperations[] | undefined): WebhookRule[] => matchable((rules ?? []).filter((r) => (r.resourceNames ?? []).length === 0));

interface KindContext {
  table: readonly KindEntry[];
  warnings: string[];
  unresolved: string[];
  where: string;
  /** The rule's exclude filters that take out whole kinds (see blanketExclusions). */
  exclusions: readonly ResourceFilter[];
}

/**
 * The exclude filters that name nothing but kinds and operations: each takes out every request of its
 * kinds (all kinds when it names none) and operations (all when it names none), whoever sends it, so
 * those need not be sent. Kyverno's webhook drops them the same way (collectResourceDescriptions,
 * controllers/webhook/utils.go, from `exclude.any`); the legacy single filter and a one-filter `all`
 * mean the same here. Anything else (names, selectors, users) is left to Amender.
 */
function blanketExclusions(exclude: MatchBlock | undefined): ResourceFilter[] {
  if (!exclude) return [];
  const filters = exclude.any?.length ? exclude.any : exclude.all?.length ? (exclude.all.length === 1 ? exclude.all : []) : exclude.single ? [exclude.single] : [];
  return filters.filter(
    (f) =>
      !f.empty && f.name === undefined && !f.names && !f.namespaces && !f.annotations && !f.selector && !f.namespaceSelector && !f.roles && !f.clusterRoles && !f.subjects,
  );
}

/** Whether exclude selector `e` selects every request match selector `k` does (each part `*` or the same). */
function selectsAllOf(e: KindSelector, k: KindSelector): boolean {
  const part = (a: string, b: string) => a === '*' || a === b;
  return part(e.group, k.group) && part(e.version, k.version) && part(e.kind, k.kind) && e.subresource === k.subresource;
}

/** `operations` less those an exclusion takes out for every request of `k` (undefined: a filter without kinds). */
function notExcluded(operations: readonly string[], k: KindSelector | undefined, exclusions: readonly ResourceFilter[]): string[] {
  let left = [...operations];
  for (const e of exclusions) {
    const kinds = e.kinds && e.kinds.length > 0 ? e.kinds : undefined;
    if (kinds && (k === undefined || !kinds.some((x) => selectsAllOf(x, k)))) continue;
    left = e.operations && e.operations.length > 0 ? left.filter((o) => !e.operations!.includes(o)) : [];
  }
  return left;
}

function withSubresource(resources: readonly string[], selector: KindSelector, entry?: KindEntry): string[] {
  const sub = selector.subresource;
  if (sub === '') {
    const out = [...resources];
    // Kyverno lets Pod rules see ephemeral-container updates, and registers them in its own webhook.
    if (entry && entry.group === '' && entry.kind === 'Pod') out.push('pods/ephemeralcontainers');
    return out;
  }
  const plain = resources.filter((r) => !r.includes('/'));
  if (hasWildcard(sub)) return plain.flatMap((r) => [`${r}/*`, ...(wildcardMatch(sub, '') ? [r] : [])]);
  return plain.map((r) => `${r}/${sub}`);
}

function kindRules(selector: KindSelector, text: string, ctx: KindContext): Omit<WebhookRule, 'operations'>[] {
  const { group, version, kind } = selector;
  const anyGroup = group === '*' || hasWildcard(group);
  const anyVersion = version === '*' || hasWildcard(version);
  if (kind === '*') {
    if ((anyGroup && group !== '*') || (anyVersion && version !== '*')) ctx.warnings.push(`${ctx.where}: kinds entry ${text} is covered for every group or version (the rules cannot hold patterns)`);
    const sub = selector.subresource;
    const resources = sub === '' ? ['*'] : hasWildcard(sub) ? ['*/*'] : [`*/${sub}`];
    // `*` takes in Pods, so their ephemeral-container updates too (the engine matches them as Kyverno's
    // CheckKind does; Kyverno's webhook adds pods/ephemeralcontainers to a core/v1 `*` rule, utils_webhook.go).
    if (sub === '' && wildcardMatch(group, '') && wildcardMatch(version, 'v1')) resources.push('pods/ephemeralcontainers');
    return [{ apiGroups: [anyGroup ? '*' : group], apiVersions: [anyVersion ? '*' : version], resources, scope: '*' }];
  }
  const candidates = ctx.table.filter((e) => wildcardMatch(kind, e.kind) && wildcardMatch(group, e.group) && wildcardMatch(version, e.version));
  if (hasWildcard(kind)) {
    ctx.warnings.push(`${ctx.where}: kinds entry ${text} is covered for the known kinds it matches (${[...new Set(candidates.map((c) => c.kind))].join(', ') || 'none'}); custom kinds not declared in the policy set are not`);
  }
  if (candidates.length === 0) {
    if (hasWildcard(kind)) return [];
    if (!anyGroup) {
      // Both guesses, where they differ: a rule for a resource that does not exist costs nothing, a missed one
      // every request of the kind.
      const resources = [...new Set([englishPlural(kind), guessResource(kind)])];
      const said = resources.map((r) => `"${r}"`).join(' or ');
      ctx.warnings.push(`${ctx.where}: kind ${text} is not a built-in kind and no CustomResourceDefinition in the policy set declares it; its resource is taken to be ${said} (the English plural CRD generators write, and Kubernetes' guess from the kind; add the CRD to --policies to be sure)`);
      return [{ apiGroups: [group], apiVersions: [anyVersion ? '*' : version], resources: withSubresource(resources, selector), scope: '*' }];
    }
    ctx.unresolved.push(`${ctx.where}: kind ${text} is not a built-in kind and no CustomResourceDefinition in the policy set declares it (add the CRD to --policies, or write the kind as group/version/Kind)`);
    return [];
  }
  return candidates
    .map((e) => ({
      apiGroups: [e.resourceGroup ?? e.group],
      apiVersions: [e.anyVersion || anyVersion ? '*' : e.version],
      resources: withSubresource(e.resources, selector, e),
      scope: '*' as RuleScope,
    }))
    .filter((r) => r.resources.length > 0);
}

function filterRules(f: ResourceFilter, ctx: KindContext): WebhookRule[] {
  if (f.empty) return [];
  const named = f.operations && f.operations.length > 0 ? [...f.operations] : KYVERNO_DEFAULT_OPERATIONS;
  const operations = named.filter((o) => KYVERNO_MUTATED_OPERATIONS.includes(o));
  if (operations.length === 0) return [];
  if (!f.kinds || f.kinds.length === 0) {
    const left = notExcluded(operations, undefined, ctx.exclusions);
    if (left.length === 0) return [];
    ctx.warnings.push(`${ctx.where}: a match filter names no kinds, so every resource is covered`);
    return [normalizeRule({ operations: left, apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: '*' })];
  }
  return f.kinds.flatMap((k) => {
    const left = notExcluded(operations, k, ctx.exclusions);
    if (left.length === 0) return [];
    return kindRules(k, `${k.group}/${k.version}/${k.kind}${k.subresource ? `/${k.subresource}` : ''}`, ctx).map((r) => normalizeRule({ ...r, operations: left }));
  });
}

function blockRules(block: MatchBlock, ctx: KindContext): WebhookRule[] {
  if (block.any && block.any.length > 0) return block.any.flatMap((f) => filterRules(f, ctx));
  if (block.all && block.all.length > 0) {
    return block.all.map((f) => filterRules(f, ctx)).reduce((acc, next) => intersectRuleSets(acc, next));
  }
  return block.single ? filterRules(block.single, ctx) : [];
}

/** `crds`: the CustomResourceDefinitions among the documents (their kinds and plurals). */
export function deriveRules(set: PolicySet, crdEntries: readonly KindEntry[] = []): DerivedRules {
  const table = [...builtinKindTable(), ...crdEntries];
  const warnings: string[] = [];
  const unresolved: string[] = [];
  const policies: PolicyCoverage[] = [];
  const idle: string[] = [];

  // Policies the API server would convert a request for (matchPolicy Equivalent, the default).
  const converting: VersionedCoverage[] = [];
  for (const bound of set.mutatingPolicies) {
    // A Kyverno MutatingPolicy acts on its own matchConstraints (its one implicit binding narrows nothing);
    // its autogen variants add the pod controllers' rules under the same id.
    const id = bound.kyverno ? `${bound.kyverno.kind}/${bound.policy.name}` : `MutatingAdmissionPolicy/${bound.policy.name}`;
    if (bound.bindings.length === 0) {
      idle.push(`${id}: no binding (a policy acts only through a MutatingAdmissionPolicyBinding)`);
      continue;
    }
    const own = matchable(bound.policy.matchConstraints?.resourceRules ?? [], MUTATED_OPERATIONS);
    if (own.length === 0) {
      const namesDelete = bound.kyverno !== undefined && (bound.policy.matchConstraints?.resourceRules ?? []).some((r) => r.operations.includes('DELETE'));
      const deleteOnly = namesDelete ? ', or only DELETE, which is never mutated' : '';
      idle.push(`${id}: its matchConstraints resourceRules match no request (a rule without operations, groups, versions or resources, or with only empty ones${deleteOnly})`);
      continue;
    }
    const policyExclusions = wholeExclusions(bound.policy.matchConstraints?.excludeResourceRules);
    const narrowed = bound.bindings.flatMap((b) => {
      const narrowing = b.matchResources?.resourceRules ?? [];
      const both = narrowing.length === 0 ? own : intersectRuleSets(own, matchable(narrowing));
      const exclusions = [...policyExclusions, ...wholeExclusions(b.matchResources?.excludeResourceRules)];
      return { both, left: both.flatMap((r) => withoutExcludedOperations(r, exclusions) ?? []) };
    });
    const rules = narrowed.flatMap((n) => n.left);
    if (rules.length === 0) {
      const why = narrowed.some((n) => n.both.length > 0)
        ? 'its excludeResourceRules take out every request its resourceRules match'
        : "its bindings' resourceRules and its matchConstraints have nothing in common";
      idle.push(`${id}: ${why}`);
      continue;
    }
    if (bound.policy.matchConstraints?.matchPolicy !== 'Exact') converting.push({ policy: id, rules });
    const earlier = bound.kyverno ? policies.find((p) => p.policy === id) : undefined;
    if (earlier) {
      earlier.rules = mergeRules([...earlier.rules, ...rules]);
      continue;
    }
    policies.push({
      policy: id,
      ...(bound.kyverno?.namespace !== undefined ? { namespace: bound.kyverno.namespace } : {}),
      rules: mergeRules(rules),
      failurePolicy: bound.policy.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      reinvocationPolicy: bound.policy.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    });
  }

  for (const policy of set.kyvernoPolicies as readonly CompiledKyvernoPolicy[]) {
    if (!policy.admission) {
      idle.push(`${policy.id}: spec.admission is false (it never runs at admission)`);
      continue;
    }
    const matched = policy.rules
      .filter((r) => r.mutation.type !== 'targets')
      .flatMap((r) => blockRules(r.match, { table, warnings, unresolved, where: `${policy.id} rule ${r.name}`, exclusions: blanketExclusions(r.exclude) }));
    // A namespaced Policy acts only on objects of its namespace (src/kyverno/run.ts namespaceFits), and the
    // API server clears the namespace of a cluster-scoped object before admission: namespaced requests only,
    // as Kyverno registers a Policy's wildcard kinds (controllers/webhook/controller.go mergeWebhook).
    const rules = policy.namespace === undefined ? matched : matched.map((r) => ({ ...r, scope: 'Namespaced' as const }));
    if (rules.length === 0) {
      idle.push(`${policy.id}: no mutate rule that runs at admission matches any resource`);
      continue;
    }
    // Kyverno registers its ClusterPolicy/Policy webhooks with reinvocationPolicy IfNeeded (controller.go).
    policies.push({
      policy: policy.id,
      ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
      rules: mergeRules(rules),
      failurePolicy: policy.failurePolicy,
      reinvocationPolicy: 'IfNeeded',
    });
  }

  const rules = mergeRules(policies.flatMap((p) => p.rules));
  warnings.push(...unconvertedVersionWarnings(mergeConverting(converting), rules, servedVersions(table)));
  return { rules, policies, idle, warnings: [...new Set(warnings)], unresolved: [...new Set(unresolved)] };
}

/** One entry per policy id (a MutatingPolicy's autogen variants share its id). */
function mergeConverting(list: readonly VersionedCoverage[]): VersionedCoverage[] {
  const byId = new Map<string, WebhookRule[]>();
  for (const c of list) byId.set(c.policy, [...(byId.get(c.policy) ?? []), ...c.rules]);
  return [...byId].map(([policy, rules]) => ({ policy, rules }));
}
