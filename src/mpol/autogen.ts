/**
 * Kyverno's autogen for MutatingPolicies (pkg/cel/policies/mpol/autogen, pkg/cel/autogen): a policy that
 * matches only pods (one rule: group "", version v1, resource pods; no object selector, exclusions or
 * resource names) also gets variants for the pod controllers — Deployment, StatefulSet, DaemonSet, Job,
 * ReplicaSet acting on `spec.template`, CronJob on `spec.jobTemplate.spec.template` — unless
 * `spec.autogen.podControllers.controllers` lists fewer. A variant matches the controllers' resources
 * with the policy's operations and namespaceSelector (no matchPolicy: exact matching, whatever the
 * policy's), and has its matchConditions and ApplyConfiguration
 * expressions rewritten as Kyverno rewrites them (JSONPatch expressions and variables are kept as they
 * are, as in Kyverno).
 */
import type { MatchResources, MutatingAdmissionPolicy, NamedRuleWithOperations } from '../map/index.js';

export type AutogenGroup = 'defaults' | 'cronjobs';

interface Controller {
  group: string;
  version: string;
  resource: string;
  replacements: AutogenGroup;
}

const CONTROLLERS: Readonly<Record<string, Controller>> = {
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', replacements: 'defaults' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', replacements: 'defaults' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', replacements: 'defaults' },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', replacements: 'defaults' },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', replacements: 'defaults' },
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', replacements: 'cronjobs' },
};

export const AUTOGEN_CONTROLLERS: readonly string[] = Object.keys(CONTROLLERS);

export interface AutogenVariant {
  group: AutogenGroup;
  policy: MutatingAdmissionPolicy;
}

function isEmptySelector(s: MatchResources['objectSelector']): boolean {
  return !s || ((s.matchLabels === undefined || Object.keys(s.matchLabels).length === 0) && (s.matchExpressions === undefined || s.matchExpressions.length === 0));
}

/** Kyverno's CanAutoGen. */
export function canAutogen(match: MatchResources | undefined): boolean {
  if (!match || !isEmptySelector(match.objectSelector) || match.excludeResourceRules.length > 0 || match.resourceRules.length !== 1) return false;
  const r = match.resourceRules[0];
  return (
    r.resourceNames.length === 0 &&
    r.apiGroups.length === 1 && r.apiGroups[0] === '' &&
    r.apiVersions.length === 1 && r.apiVersions[0] === 'v1' &&
    r.resources.length === 1 && r.resources[0] === 'pods'
  );
}

const SPEC = /\b(object|oldObject|Object)\.spec/g;
const LABELS = /\b(object|oldObject|Object)\.metadata\.labels/g;
const ANNOTATIONS = /\b(object|oldObject|Object)\.metadata\.annotations/g;

/** Kyverno's convertPodToTemplateExpression, applied to one expression. */
export function convertPodExpression(expression: string, group: AutogenGroup): string {
  const template = group === 'cronjobs' ? 'spec.jobTemplate.spec.template' : 'spec.template';
  let e = expression.replace(SPEC, `$1.${template}.spec`);
  e = e.replace(LABELS, `$1.${template}.metadata.labels`);
  e = e.replace(ANNOTATIONS, `$1.${template}.metadata.annotations`);
  // The root `Object{...}` constructor is wrapped into the controller's template.
  const trimmed = e.trim();
  if (!trimmed.startsWith('Object')) return e;
  let content = trimmed.slice('Object'.length).replace(/^[ \t\r\n]+/, '');
  if (!content.startsWith('{')) return e;
  content = content.slice(1);
  let depth = 1;
  let end = 0;
  // Kyverno counts braces by rune index; string contents are not special-cased there either.
  const chars = Array.from(content);
  let offset = 0;
  for (const ch of chars) {
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) {
        end = offset;
        break;
      }
    }
    offset += ch.length;
  }
  if (end <= 0) return e;
  const inner = content.slice(0, end);
  const rest = content.slice(end + 1);
  const [open, close] =
    group === 'cronjobs'
      ? ['Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{', '}}}}}']
      : ['Object{spec: Object.spec{template: Object.spec.template{', '}}}'];
  return open + inner + close + rest;
}

function controllerRules(controllers: readonly Controller[], operations: string[]): NamedRuleWithOperations[] {
  const byGroupVersion = new Map<string, { group: string; version: string; resources: Set<string> }>();
  for (const c of controllers) {
    const key = `${c.group}/${c.version}`;
    let entry = byGroupVersion.get(key);
    if (!entry) byGroupVersion.set(key, (entry = { group: c.group, version: c.version, resources: new Set() }));
    entry.resources.add(c.resource);
  }
  return [...byGroupVersion.values()]
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0))
    .map((gv) => ({ apiGroups: [gv.group], apiVersions: [gv.version], resources: [...gv.resources].sort(), operations: [...operations], resourceNames: [], scope: '*' }));
}

/**
 * The variants of a (defaulted) policy: none when it cannot be autogenerated or `controllers` names no
 * known controller. `controllers` undefined = every controller, as in Kyverno.
 */
export function autogenVariants(policy: MutatingAdmissionPolicy, controllers: readonly string[] | undefined): AutogenVariant[] {
  const match = policy.matchConstraints;
  if (!match || !canAutogen(match)) return [];
  const selected = (controllers ?? AUTOGEN_CONTROLLERS).map((c) => CONTROLLERS[c]).filter((c): c is Controller => c !== undefined);
  const out: AutogenVariant[] = [];
  for (const group of ['cronjobs', 'defaults'] as const) {
    const targets = selected.filter((c) => c.replacements === group);
    if (targets.length === 0) continue;
    const operations = match.resourceRules[0].operations;
    const matchConstraints: MatchResources = {
      namespaceSelector: match.namespaceSelector,
      objectSelector: {},
      resourceRules: controllerRules(targets, operations),
      excludeResourceRules: [],
      // Kyverno's CreateMatchConstraints sets no matchPolicy (nil: exact matching), whatever the policy's.
      matchPolicy: null,
    };
    out.push({
      group,
      policy: {
        ...policy,
        matchConstraints,
        matchConditions: policy.matchConditions.map((c) => (c.expression ? { ...c, expression: convertPodExpression(c.expression, group) } : c)),
        mutations: policy.mutations.map((m) =>
          m.applyConfiguration && m.applyConfiguration.expression ? { ...m, applyConfiguration: { expression: convertPodExpression(m.applyConfiguration.expression, group) } } : m,
        ),
      },
    });
  }
  return out;
}
