/**
 * Pod-controller auto-generation (pkg/autogen/v1): a policy whose rules match Pods (and nothing that
 * cannot carry over, such as names, selectors or annotations) gets, for each Pod rule, an
 * `autogen-<rule>` matching Deployments, DaemonSets, Jobs, StatefulSets, ReplicaSets and
 * ReplicationControllers, with the overlay moved under `spec.template` and `request.object.spec` /
 * `.metadata` read from the template; and an `autogen-cronjob-<rule>` for CronJobs
 * (`spec.jobTemplate.spec.template`). The annotation `pod-policies.kyverno.io/autogen-controllers`
 * chooses the controllers (`none` disables it; a custom kind named alone gets a rule too); any `patchesJson6902` in the policy disables it, since
 * JSON-patch paths cannot be moved.
 */
import { cloneJson, getOwn, isJsonObject, MAX_POLICY_DEPTH, parseJson, setOwn, type JsonObject, type JsonValue } from '../json/index.js';
import { kindName } from './match/kinds.js';

const ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';
const POD_CONTROLLERS = ['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController'];
const ALL_CONTROLLERS = [...POD_CONTROLLERS, 'CronJob'];
const GVK: Record<string, string> = {
  DaemonSet: 'apps/v1/DaemonSet',
  Deployment: 'apps/v1/Deployment',
  Job: 'batch/v1/Job',
  StatefulSet: 'apps/v1/StatefulSet',
  ReplicaSet: 'apps/v1/ReplicaSet',
  ReplicationController: 'v1/ReplicationController',
  CronJob: 'batch/v1/CronJob',
  Pod: 'v1/Pod',
};
const POD_REWRITES: [string, string][] = [
  ['request.object.spec', 'request.object.spec.template.spec'],
  ['request.oldObject.spec', 'request.oldObject.spec.template.spec'],
  ['request.object.metadata', 'request.object.spec.template.metadata'],
  ['request.oldObject.metadata', 'request.oldObject.spec.template.metadata'],
];
const CRONJOB_REWRITES: [string, string][] = [
  ['request.object.spec', 'request.object.spec.jobTemplate.spec.template.spec'],
  ['request.oldObject.spec', 'request.oldObject.spec.jobTemplate.spec.template.spec'],
  ['request.object.metadata', 'request.object.spec.jobTemplate.spec.template.metadata'],
  ['request.oldObject.metadata', 'request.oldObject.spec.jobTemplate.spec.template.metadata'],
];

export interface GeneratedRule {
  readonly kind: 'autogen' | 'autogen-cronjob';
  readonly rule: JsonObject;
}

export interface Autogen {
  /** The mutate rules to add for pod controllers. */
  readonly generated: GeneratedRule[];
  /**
   * Kyverno generated a rule, of any type (computeRules): then it drops the policy's own rules named
   * `autogen-…`, which it takes for rules an older Kyverno wrote into spec.rules, and runs only the ones
   * it generated. (Without a generated rule the policy's rules all stay.)
   */
  readonly dropsOwnAutogenRules: boolean;
}

/** The rules to add to a policy for pod controllers (none when auto-generation does not apply). */
export function autogenRules(policy: JsonObject, rules: readonly JsonObject[]): Autogen {
  const controllers = requestedControllers(policy);
  if ((controllers.pods.length === 0 && !controllers.cronJob) || !canAutogen(rules)) return { generated: [], dropsOwnAutogenRules: false };
  const out: GeneratedRule[] = [];
  // A validate or verifyImages rule, which Amender does not run, is generated for pod controllers too.
  const dropsOwnAutogenRules = rules.some((rule) => !isJsonObject(getOwn(rule, 'mutate')) && generatesOtherType(rule, controllers));
  for (const rule of rules) {
    if (!isJsonObject(getOwn(rule, 'mutate'))) continue;
    const podRule = controllerRule(rule, controllers.pods);
    if (podRule) out.push({ kind: 'autogen', rule: rewrite(podRule, POD_REWRITES) });
    if (controllers.cronJob) {
      const base = controllerRule(rule, POD_CONTROLLERS);
      const cron = base && generate(base, ruleName('autogen-cronjob', rule), 'jobTemplate', ['CronJob'], () => true);
      if (cron) out.push({ kind: 'autogen-cronjob', rule: rewrite(cron, CRONJOB_REWRITES) });
    }
  }
  return { generated: out, dropsOwnAutogenRules: dropsOwnAutogenRules || out.length > 0 };
}

/**
 * Whether Kyverno generates a rule for pod controllers from a rule that is not a mutate rule: it matches
 * Pods as controllerRule requires, and its validation (pattern, anyPattern, deny, podSecurity, foreach,
 * cel) or verifyImages is one generateRule carries over.
 */
function generatesOtherType(rule: JsonObject, controllers: { pods: string[]; cronJob: boolean }): boolean {
  const name = getOwn(rule, 'name');
  if (typeof name === 'string' && name.startsWith('autogen-')) return false;
  // The CronJob rule is made from the pod-controller rule, which then names CronJob alone.
  if (controllers.pods.length === 0 && !controllers.cronJob) return false;
  const excludeKinds = blockKinds(getOwn(rule, 'exclude'));
  if (!hasPod(blockKinds(getOwn(rule, 'match'))) || (excludeKinds.length > 0 && !hasPod(excludeKinds))) return false;
  const validate = getOwn(rule, 'validate');
  if (isJsonObject(validate)) {
    for (const key of ['pattern', 'anyPattern', 'deny', 'podSecurity', 'cel']) if (nonEmpty(getOwn(validate, key))) return true;
    const foreach = getOwn(validate, 'foreach');
    if (Array.isArray(foreach) && foreach.length > 0) return true;
  }
  return nonEmpty(getOwn(rule, 'verifyImages'));
}

/**
 * The controllers the annotation asks for, read as Kyverno reads it (pkg/autogen/v1 computeRules,
 * generateRuleForControllers, generateCronJobRule): no annotation = all; the comma-separated names are a
 * set, which disables generation when it is `none` alone. Without CronJob (CronJob has a rule of its own,
 * made when the text contains `CronJob` or `all`), the names are `all` alone = the six pod controllers;
 * else those that are pod controllers exactly (no trimming: ` Job` is none); and when none of them is,
 * every name as written — Kyverno's way of generating rules for a custom resource embedding a Pod
 * template (`Rollout`), dropped beside a pod controller (kyverno/kyverno#7446). An empty annotation asks
 * for none.
 */
function requestedControllers(policy: JsonObject): { pods: string[]; cronJob: boolean } {
  const metadata = getOwn(policy, 'metadata');
  const annotations = isJsonObject(metadata) ? getOwn(metadata, 'annotations') : undefined;
  const value = isJsonObject(annotations) ? getOwn(annotations, ANNOTATION) : undefined;
  if (typeof value !== 'string') return { pods: POD_CONTROLLERS, cronJob: true };
  const names = [...new Set(value.split(','))];
  if (names.length === 1 && names[0] === 'none') return { pods: [], cronJob: false };
  const cronJob = value.includes('CronJob') || value.includes('all');
  const others = names.filter((n) => n !== 'CronJob').sort();
  const text = others.join(',');
  if (text === '') return { pods: [], cronJob };
  if (text === 'all') return { pods: POD_CONTROLLERS, cronJob };
  const known = others.filter((n) => POD_CONTROLLERS.includes(n));
  // An empty name (`,Rollout`) is a kind nothing has: left out rather than refused as a kinds entry.
  return { pods: known.length > 0 ? known : others.filter((n) => n !== ''), cronJob };
}

/** Kyverno's CanAutoGen over every rule of the policy, not only mutate rules. */
function canAutogen(rules: readonly JsonObject[]): boolean {
  let needed = false;
  for (const rule of rules) {
    if (getOwn(rule, 'generate') !== undefined) return false;
    const mutate = getOwn(rule, 'mutate');
    if (isJsonObject(mutate)) {
      if (nonEmpty(getOwn(mutate, 'patchesJson6902'))) return false;
      const foreach = getOwn(mutate, 'foreach');
      if (Array.isArray(foreach) && foreach.some((f) => isJsonObject(f) && nonEmpty(getOwn(f, 'patchesJson6902')))) return false;
    }
    for (const description of descriptions(rule)) {
      if (!supportsAutogen(description)) return false;
      const kinds = stringArray(getOwn(description, 'kinds'));
      if (kinds.some((k) => k === 'Pod' || ALL_CONTROLLERS.includes(k))) needed = true;
    }
  }
  return needed;
}

function nonEmpty(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** Every `resources` block of a rule's match and exclude. */
function descriptions(rule: JsonObject): JsonObject[] {
  return [...resourceBlocks(getOwn(rule, 'match')), ...resourceBlocks(getOwn(rule, 'exclude'))];
}

/** The `resources` blocks of one match or exclude block: the legacy one, then those of `any` and `all`. */
function resourceBlocks(block: JsonValue | undefined): JsonObject[] {
  if (!isJsonObject(block)) return [];
  const out: JsonObject[] = [];
  const single = getOwn(block, 'resources');
  if (isJsonObject(single)) out.push(single);
  for (const listKey of ['any', 'all']) {
    const list = getOwn(block, listKey);
    if (!Array.isArray(list)) continue;
    for (const f of list) {
      const r = isJsonObject(f) ? getOwn(f, 'resources') : undefined;
      if (isJsonObject(r)) out.push(r);
    }
  }
  return out;
}

function supportsAutogen(d: JsonObject): boolean {
  const kinds = stringArray(getOwn(d, 'kinds'));
  const mixed = kinds.length > 1 && kinds.some((k) => kindName(k) === 'Pod');
  return (
    !nonEmpty(getOwn(d, 'name')) &&
    stringArray(getOwn(d, 'names')).length === 0 &&
    (getOwn(d, 'selector') ?? null) === null &&
    (getOwn(d, 'annotations') ?? null) === null &&
    !mixed
  );
}

function stringArray(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function blockKinds(block: JsonValue | undefined): string[] {
  return resourceBlocks(block).flatMap((r) => stringArray(getOwn(r, 'kinds')));
}

function hasPod(kinds: readonly string[]): boolean {
  return kinds.some((k) => kindName(k) === 'Pod');
}

function ruleName(prefix: string, rule: JsonObject): string {
  const name = getOwn(rule, 'name');
  return `${prefix}-${typeof name === 'string' ? name : ''}`.slice(0, 63);
}

/** The `autogen-` rule for pod controllers, before its variables are rewritten. */
function controllerRule(rule: JsonObject, controllers: readonly string[]): JsonObject | undefined {
  const name = getOwn(rule, 'name');
  if (controllers.length === 0 || (typeof name === 'string' && name.startsWith('autogen-'))) return undefined;
  const excludeKinds = blockKinds(getOwn(rule, 'exclude'));
  if (!hasPod(blockKinds(getOwn(rule, 'match'))) || (excludeKinds.length > 0 && !hasPod(excludeKinds))) return undefined;
  return generate(rule, ruleName('autogen', rule), 'template', controllers, (kinds) => hasPod(kinds));
}

/**
 * Copies a rule under a new name: the kinds of the filters `replaceKinds` selects become the
 * controllers', and the overlay moves under `spec.<templateKey>`.
 */
function generate(
  source: JsonObject,
  name: string,
  templateKey: string,
  controllers: readonly string[],
  replaceKinds: (kinds: readonly string[]) => boolean,
): JsonObject | undefined {
  const rule = cloneJson(source);
  setOwn(rule, 'name', name);
  const gvks = controllers.map((c) => GVK[c] ?? c);
  retarget(getOwn(rule, 'match'), gvks, replaceKinds, true);
  retarget(getOwn(rule, 'exclude'), gvks, replaceKinds, false);
  const mutate = getOwn(rule, 'mutate');
  if (!isJsonObject(mutate)) return undefined;
  const wrap = (overlay: JsonValue) => ({ spec: { [templateKey]: overlay } });
  const overlay = getOwn(mutate, 'patchStrategicMerge');
  if (overlay !== undefined && overlay !== null) {
    setOwn(rule, 'mutate', { patchStrategicMerge: wrap(overlay) });
    return rule;
  }
  const foreach = getOwn(mutate, 'foreach');
  if (Array.isArray(foreach) && foreach.length > 0) {
    const entries = foreach.map((entry) => {
      if (!isJsonObject(entry)) return entry;
      // Kyverno's copy keeps the list, context and preconditions only: `order` is dropped, so the
      // generated entry iterates in the default order (descending for a strategic merge), and so is a
      // nested `foreach`. An entry without an overlay (a nested foreach) gets Kyverno's wrapping of
      // nothing, `{spec: {template: null}}`, which deletes the controller's template, as in Kyverno.
      const entryOverlay = getOwn(entry, 'patchStrategicMerge') ?? null;
      const out: JsonObject = {};
      for (const key of ['list', 'context', 'preconditions']) {
        const v = getOwn(entry, key);
        if (v !== undefined) setOwn(out, key, v);
      }
      setOwn(out, 'patchStrategicMerge', wrap(entryOverlay));
      return out;
    });
    setOwn(rule, 'mutate', { foreach: entries });
    return rule;
  }
  return undefined;
}

function retarget(block: JsonValue | undefined, gvks: string[], replaceKinds: (kinds: readonly string[]) => boolean, isMatch: boolean): void {
  if (!isJsonObject(block)) return;
  let usedLists = false;
  for (const listKey of ['any', 'all']) {
    const list = getOwn(block, listKey);
    if (!Array.isArray(list) || list.length === 0) continue;
    usedLists = true;
    for (const f of list) {
      const r = isJsonObject(f) ? getOwn(f, 'resources') : undefined;
      if (isJsonObject(r) && replaceKinds(stringArray(getOwn(r, 'kinds')))) setOwn(r, 'kinds', [...gvks]);
    }
    break;
  }
  if (usedLists) return;
  const single = getOwn(block, 'resources');
  if (isJsonObject(single)) {
    if (isMatch || stringArray(getOwn(single, 'kinds')).length > 0) setOwn(single, 'kinds', [...gvks]);
  } else if (isMatch) {
    setOwn(block, 'resources', { kinds: [...gvks] });
  }
}

/**
 * Levels a generated rule may nest beyond its policy: the overlay moved under `spec.jobTemplate.spec.template`
 * gains four (the rule itself sits three below the document's top, so this is generous).
 */
const GENERATED_DEPTH = 4;

/** Kyverno rewrites the rule's JSON text, so every `request.object.spec…` anywhere is moved. */
function rewrite(rule: JsonObject, rewrites: [string, string][]): JsonObject {
  let text = JSON.stringify(rule);
  for (const [from, to] of rewrites) text = text.replaceAll(from, to);
  // A policy at the depth bound gives a generated rule a few levels deeper (the overlay moved down).
  return parseJson(text, { maxDepth: MAX_POLICY_DEPTH + GENERATED_DEPTH }) as JsonObject;
}
