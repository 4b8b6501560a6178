/**
 * Webhook rules (admissionregistration.k8s.io/v1 RuleWithOperations) as sets: intersection (a binding
 * narrows its policy; Kyverno `match.all`), union with subsumption, and the API server's own validation
 * of a rule. A rule stands for the cartesian product of its lists; `*` in a list means every value.
 * Resources read `res`, `res/sub`, `res/*`, `*`, `*\/sub`, `*\/*` as kube-apiserver's rule matcher reads
 * them (webhook/predicates/rules/rules.go): each part is a value or `*` for any, and a missing
 * subresource is the empty one. So `*` is every resource but no subresource, `res/*` res itself and
 * every subresource of it, `*\/*` everything.
 */

export const SCOPES = ['*', 'Cluster', 'Namespaced'] as const;
export type RuleScope = (typeof SCOPES)[number];

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: RuleScope;
}

export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/** `a ∩ b` of two lists where `*` is every value; empty when disjoint. */
function intersectList(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes('*')) return [...b];
  if (b.includes('*')) return [...a];
  return a.filter((x) => b.includes(x));
}

interface ResourcePattern {
  resource: string;
  /** '' for the resource itself (no subresource); `*` for any subresource or none. */
  sub: string;
}

function parseResource(text: string): ResourcePattern {
  const slash = text.indexOf('/');
  return slash < 0 ? { resource: text, sub: '' } : { resource: text.slice(0, slash), sub: text.slice(slash + 1) };
}

function formatResource(p: ResourcePattern): string {
  return p.sub === '' ? p.resource : `${p.resource}/${p.sub}`;
}

function intersectPart(a: string, b: string): string | undefined {
  if (a === '*') return b;
  if (b === '*') return a;
  return a === b ? a : undefined;
}

function intersectResource(a: ResourcePattern, b: ResourcePattern): ResourcePattern | undefined {
  const resource = intersectPart(a.resource, b.resource);
  const sub = intersectPart(a.sub, b.sub);
  return resource === undefined || sub === undefined ? undefined : { resource, sub };
}

/** Whether pattern `a` covers every request pattern `b` covers. */
function coversResource(a: ResourcePattern, b: ResourcePattern): boolean {
  return (a.resource === '*' || a.resource === b.resource) && (a.sub === '*' || a.sub === b.sub);
}

function intersectResources(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const x of a.map(parseResource)) {
    for (const y of b.map(parseResource)) {
      const both = intersectResource(x, y);
      if (both) out.push(formatResource(both));
    }
  }
  return out;
}

function intersectScope(a: RuleScope, b: RuleScope): RuleScope | undefined {
  if (a === '*') return b;
  if (b === '*') return a;
  return a === b ? a : undefined;
}

/** The requests both rules match, as one rule; undefined when none. */
export function intersectRule(a: WebhookRule, b: WebhookRule): WebhookRule | undefined {
  const operations = intersectList(a.operations, b.operations);
  const apiGroups = intersectList(a.apiGroups, b.apiGroups);
  const apiVersions = intersectList(a.apiVersions, b.apiVersions);
  const resources = intersectResources(a.resources, b.resources);
  const scope = intersectScope(a.scope, b.scope);
  if (!operations.length || !apiGroups.length || !apiVersions.length || !resources.length || scope === undefined) return undefined;
  return normalizeRule({ operations, apiGroups, apiVersions, resources, scope });
}

/** Every pairwise intersection of two rule sets (`A ∩ B` as a union of rules). */
export function intersectRuleSets(a: readonly WebhookRule[], b: readonly WebhookRule[]): WebhookRule[] {
  const out: WebhookRule[] = [];
  for (const x of a) for (const y of b) {
    const both = intersectRule(x, y);
    if (both) out.push(both);
  }
  return out;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function normalizeList(list: readonly string[]): string[] {
  return list.includes('*') ? ['*'] : [...new Set(list)].sort(byText);
}

/** Drops resource patterns another one of the list covers, so the list passes the API server's checks. */
function normalizeResources(list: readonly string[]): string[] {
  const patterns = [...new Set(list)].map(parseResource);
  const kept = patterns.filter((p, i) => !patterns.some((q, j) => j !== i && coversResource(q, p) && (!coversResource(p, q) || j < i)));
  return kept.map(formatResource).sort(byText);
}

/** A rule with sorted, de-duplicated lists, `*` alone where present and covered resources dropped. */
export function normalizeRule(rule: WebhookRule): WebhookRule {
  const operations = rule.operations.includes('*') || OPERATIONS.every((o) => rule.operations.includes(o)) ? ['*'] : normalizeList(rule.operations);
  return {
    operations,
    apiGroups: normalizeList(rule.apiGroups),
    apiVersions: normalizeList(rule.apiVersions),
    resources: normalizeResources(rule.resources),
    scope: rule.scope,
  };
}

function covers(a: WebhookRule, b: WebhookRule): boolean {
  const list = (x: readonly string[], y: readonly string[]) => x.includes('*') || y.every((v) => x.includes(v));
  return (
    list(a.operations, b.operations) &&
    list(a.apiGroups, b.apiGroups) &&
    list(a.apiVersions, b.apiVersions) &&
    (a.scope === '*' || a.scope === b.scope) &&
    b.resources.map(parseResource).every((r) => a.resources.map(parseResource).some((q) => coversResource(q, r)))
  );
}

/**
 * `rule` less the operations of the `exclusions` that take every request it matches otherwise (their
 * groups, versions, resources and scope cover its own): such a request of such an operation is always
 * excluded, so need not be sent. Undefined when no operation is left.
 */
export function withoutExcludedOperations(rule: WebhookRule, exclusions: readonly WebhookRule[]): WebhookRule | undefined {
  let operations = rule.operations.includes('*') ? [...OPERATIONS] : [...rule.operations];
  for (const e of exclusions) {
    if (!covers({ ...e, operations: ['*'] }, rule)) continue;
    operations = e.operations.includes('*') ? [] : operations.filter((o) => !e.operations.includes(o));
  }
  return operations.length === 0 ? undefined : normalizeRule({ ...rule, operations });
}

const key = (parts: readonly string[][]) => parts.map((p) => p.join(',')).join('|');

/**
 * The union of `rules` as few rules as the format allows, with the same meaning: rules that differ in
 * one list only are merged into one (the product stays exact), rules covered by another are dropped,
 * and the order is deterministic.
 */
export function mergeRules(rules: readonly WebhookRule[]): WebhookRule[] {
  let current = rules.map(normalizeRule);
  const fields = ['resources', 'apiGroups', 'apiVersions', 'operations'] as const;
  for (let pass = 0; pass < 3; pass++) {
    for (const field of fields) {
      const groups = new Map<string, WebhookRule>();
      for (const rule of current) {
        const others = fields.filter((f) => f !== field).map((f) => rule[f]);
        const k = `${key(others)}|${rule.scope}`;
        const prior = groups.get(k);
        groups.set(k, prior ? normalizeRule({ ...prior, [field]: [...prior[field], ...rule[field]] }) : rule);
      }
      current = [...groups.values()];
    }
  }
  current = current.filter((r, i) => !current.some((q, j) => j !== i && covers(q, r) && (!covers(r, q) || j < i)));
  const text = (r: WebhookRule) => key([r.apiGroups, r.resources, r.apiVersions, r.operations, [r.scope]]);
  return current.sort((a, b) => byText(text(a), text(b)));
}

/**
 * What kube-apiserver's validation says of a rule (ValidateRuleWithOperations): every problem, with
 * the field. Used to check what is printed and the examples in infra/.
 */
export function ruleProblems(rule: WebhookRule, at: string): string[] {
  const problems: string[] = [];
  const starAlone = (list: readonly string[], field: string) => {
    if (list.length === 0) problems.push(`${at}.${field}: Required value`);
    if (list.length > 1 && list.includes('*')) problems.push(`${at}.${field}: Invalid value: if '*' is present, must not specify other ${field}`);
  };
  starAlone(rule.operations, 'operations');
  for (const op of rule.operations) if (op !== '*' && !(OPERATIONS as readonly string[]).includes(op)) problems.push(`${at}.operations: Unsupported value: "${op}"`);
  starAlone(rule.apiGroups, 'apiGroups');
  starAlone(rule.apiVersions, 'apiVersions');
  for (const v of rule.apiVersions) if (v === '') problems.push(`${at}.apiVersions: Required value: resource group version cannot be empty`);
  if (rule.resources.length === 0) problems.push(`${at}.resources: Required value`);
  const wildcardSubs = new Set<string>();
  const wildcardResources = new Set<string>();
  let plain = false;
  for (const r of rule.resources) {
    if (r === '') problems.push(`${at}.resources: Required value`);
    const p = parseResource(r);
    if (!r.includes('/')) {
      if (r !== '*') plain = true;
      continue;
    }
    if (wildcardSubs.has(p.resource)) problems.push(`${at}.resources: Invalid value: "${r}": if '${p.resource}/*' is present, must not specify ${r}`);
    if (wildcardResources.has(p.sub)) problems.push(`${at}.resources: Invalid value: "${r}": if '*/${p.sub}' is present, must not specify ${r}`);
    if (p.sub === '*') wildcardSubs.add(p.resource);
    if (p.resource === '*') wildcardResources.add(p.sub);
  }
  if (rule.resources.length > 1 && rule.resources.includes('*/*')) problems.push(`${at}.resources: Invalid value: if '*/*' is present, must not specify other resources`);
  if (rule.resources.includes('*') && plain) problems.push(`${at}.resources: Invalid value: if '*' is present, must not specify other resources without subresources`);
  if (!['*', 'Cluster', 'Namespaced'].includes(rule.scope)) problems.push(`${at}.scope: Unsupported value: "${rule.scope}"`);
  return problems;
}
