/**
 * Runs compiled policies against one admission request (§1 of the spec), in the deterministic order
 * of `sortPolicies`: for each policy its matched rules run in order on the working object, each rule
 * seeing the previous rule's output (as the resource and as `request.object`). A policy in which a rule
 * failed has all its changes dropped (the next policy starts from the object as it was before it); if
 * its failurePolicy is Fail the request is to be rejected. Later policies still run, so every policy's
 * outcome is reported. Only the policies that can match the request's kind are visited (./candidates.ts):
 * the others would match no rule.
 *
 * Bounds (src/guard): every step runs under the review's guard. A value over the size bound is an
 * error of its rule (its policy answers by failurePolicy; later policies run). Once the deadline has
 * passed or the review was cancelled, nothing more runs: every rule that still matches (match/exclude
 * only, which is cheap) is an error "not run: deadline exceeded…", so each remaining policy is
 * answered by its failurePolicy too.
 */
import type { AdmissionRequest } from '../admission/index.js';
import { boundMessage, defaultReviewGuard, type AbortReason, type ReviewGuard } from '../guard/index.js';
import { isJsonObject, shallowCopyObject, type JsonObject, type JsonValue } from '../json/index.js';
import { StrategicMergeCache } from '../schema/index.js';
import { ContextBudget, DEFAULT_MAX_CONTEXT_SIZE } from './context/context-budget.js';
import { JsonContext, type QueryFn } from './context/context.js';
import type { ContextSources } from './context/context-entries.js';
import { messageOf } from './errors.js';
import type { ForeachScope } from './foreach/foreach.js';
import { imagesOf } from './context/images.js';
import { objectNamespace, whyNotMatched, type MatchSubject } from './match/match.js';
import { builtinKindOfResource } from './match/top-level-kind.js';
import { kyvernoQuery } from './context/query.js';
import { PatchHeights } from './patchers/patch-heights.js';
import { runRule, type RuleStatus } from './rule.js';
import type { Labels } from './match/selector.js';
import type { CompiledKyvernoPolicy } from './types.js';
import { reviewPlan, type ReviewPlan } from './candidates.js';

export interface KyvernoInput {
  readonly request: AdmissionRequest;
  /** The object as earlier pipeline steps left it; defaults to `request.object`. */
  readonly object?: JsonValue;
  /** Labels of the request's namespace; undefined when no policy source knows that namespace. */
  readonly namespaceLabels?: Labels;
  /** Roles and cluster roles bound to the requester, when known (match `roles`/`clusterRoles`). */
  readonly roles?: readonly string[];
  readonly clusterRoles?: readonly string[];
  /** ConfigMaps from the policy sources and the optional live API, for context entries. */
  readonly sources?: ContextSources;
  /** Extra context values by dotted name (the CLI's `--set a.b=c`). */
  readonly values?: Readonly<Record<string, JsonValue>>;
  /**
   * Values for one rule by dotted name (a Kyverno test's `policies[].rules[].values`), set before its
   * context entries; a configMap/apiCall/imageRegistry/globalReference entry whose name they set is not
   * loaded, as the Kyverno CLI stands such values in for what a cluster would fetch.
   */
  readonly ruleValues?: (policyName: string, ruleName: string) => Readonly<Record<string, JsonValue>> | undefined;
  /**
   * Kyverno's `maxContextSize` (bytes of context entries one review may add, all policies together:
   * ./context/context-budget.ts); default 2 MiB, 0 or less for no limit.
   */
  readonly maxContextSize?: number;
  /** JMESPath evaluator; defaults to Kyverno's dialect (tests inject clocks this way). */
  readonly query?: QueryFn;
  /**
   * The review's deadline, size bound and cancellation, shared with the other engines of the review.
   * Default: a fresh guard with DEFAULT_REVIEW_DEADLINE_MS and DEFAULT_MAX_VALUE_BYTES.
   */
  readonly guard?: ReviewGuard;
  /** Called as each policy starts, with its index in the `policies` given (a worker's progress slot). */
  readonly onPolicyStart?: (index: number) => void;
  /**
   * The kind of a custom resource by group and plural (the CRDs of the set), for matching a subresource
   * request (`foos/scale`) by its top-level kind as Kyverno does; built-in resources are known already.
   */
  readonly resourceKind?: (group: string, resource: string) => string | undefined;
}

export interface KyvernoRuleOutcome {
  readonly rule: string;
  readonly status: RuleStatus;
  readonly message: string;
  /** Wall-clock time the rule took (0 for a rule answered without running). */
  readonly durationMs: number;
}

export interface KyvernoPolicyOutcome {
  /** `ClusterPolicy/<name>` or `Policy/<namespace>/<name>`. */
  readonly policy: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  /** `applied`: the object changed; `skipped`: nothing changed; `error`: a rule failed, changes dropped. */
  readonly status: 'applied' | 'skipped' | 'error';
  /** The rules that matched, in the order they ran. */
  readonly rules: readonly KyvernoRuleOutcome[];
  /** Wall-clock time of the policy's rules, matching included. */
  readonly durationMs: number;
  /** Set when the review's guard stopped one of its rules, or the policy was answered without running. */
  readonly aborted?: AbortReason;
}

export interface KyvernoResult {
  /** The object after every successful policy. */
  readonly object: JsonValue;
  readonly changed: boolean;
  /** Policies with at least one matching rule, in the order they ran. */
  readonly policies: readonly KyvernoPolicyOutcome[];
  /** Set when a policy with failurePolicy Fail had a failing rule: the request must be denied. */
  readonly rejection?: { readonly message: string };
  /**
   * Kyverno's admission warnings (pkg/webhooks/utils/warning.go): `policy <name>.<rule>: <message>` for
   * every rule that failed (an Ignore policy's errors: a rule response with status error always emits
   * one) and every rule that did not skip of a policy with `spec.emitWarning: true`, in the order they
   * ran. Empty when the request is rejected: Kyverno then answers with the error alone.
   */
  readonly warnings: readonly string[];
}

const plans = new WeakMap<readonly CompiledKyvernoPolicy[], ReviewPlan>();

/**
 * The run order and candidates by kind (./candidates.ts), made once for a frozen list (a policy set
 * evaluates the same list every request), per call for any other.
 */
function planOf(policies: readonly CompiledKyvernoPolicy[]): ReviewPlan {
  if (!Object.isFrozen(policies)) return reviewPlan(policies, sortPolicies(policies));
  let plan = plans.get(policies);
  if (!plan) plans.set(policies, (plan = reviewPlan(policies, sortPolicies(policies))));
  return plan;
}

/** ClusterPolicies by name, then Policies by namespace and name (the project's documented order). */
export function sortPolicies(policies: readonly CompiledKyvernoPolicy[]): CompiledKyvernoPolicy[] {
  const rank = (p: CompiledKyvernoPolicy) => (p.kind === 'ClusterPolicy' ? 0 : 1);
  return [...policies].sort((a, b) => {
    if (rank(a) !== rank(b)) return rank(a) - rank(b);
    const ns = compareText(a.namespace ?? '', b.namespace ?? '');
    return ns !== 0 ? ns : compareText(a.name, b.name);
  });
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function runKyvernoPolicies(policies: readonly CompiledKyvernoPolicy[], input: KyvernoInput): Promise<KyvernoResult> {
  const request = input.request;
  const original = input.object !== undefined ? input.object : (request.object ?? null);
  // Kyverno's mutating webhook leaves DELETE and CONNECT requests alone.
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') {
    return { object: original, changed: false, policies: [], warnings: [] };
  }
  const guard = input.guard ?? defaultReviewGuard();
  const plan = planOf(policies);
  // The review's context and caches, made when a first rule matches: most reviews match no rule of most
  // sets (a node Lease), and they are what runs the rules.
  let session: Session | undefined;
  const open = (): Session => (session ??= openSession(input, original, guard, plan.usesImages));
  let current = original;
  const refreshObject = (resource: JsonValue) => {
    session!.ctx.setObject(resource);
  };
  const outcomes: KyvernoPolicyOutcome[] = [];
  const failures: string[] = [];
  const warnings: string[] = [];
  // Roles are known when the caller gives them (a CLI test's user info); a webhook's request has none.
  const rolesKnown = input.roles !== undefined || input.clusterRoles !== undefined;
  let subject: MatchSubject | undefined;
  let subjectOf: JsonValue | undefined;

  const notify = input.onPolicyStart;
  let notified = -1;
  const candidates = candidatesOf(plan, input);
  for (let c = 0; c < candidates.length; c++) {
    const at = candidates[c];
    const policy = plan.order[at];
    if (!namespaceFits(policy, current, request)) continue;
    if (notify) {
      notified = at;
      notify(plan.indexOf.get(policy)!);
    }
    const policyStarted = now();
    if (policy.webhookConditions) {
      // The API server calls the policy's webhook only when its matchConditions hold (./webhook-conditions.ts).
      const verdict = policy.webhookConditions.verdict(request, current, guard);
      if (!verdict.matches) {
        if (!('error' in verdict)) continue;
        const message = `webhookConfiguration.matchConditions: ${verdict.error}`;
        outcomes.push({ policy: policy.id, failurePolicy: policy.failurePolicy, status: 'error', rules: [{ rule: '', status: 'error', message, durationMs: 0 }], durationMs: elapsed(policyStarted) });
        failures.push(`policy ${policy.id}: ${message}`);
        continue;
      }
    }
    const start = current;
    let scope: ForeachScope | undefined;
    let rules: KyvernoRuleOutcome[] | undefined;
    let aborted: AbortReason | undefined;
    // An index loop: the compiled policy's list is frozen, and V8 11 steps a for-of through the iterator builtin.
    for (let r = 0; r < policy.rules.length; r++) {
      const rule = policy.rules[r];
      // Not run: whether it applies depends on roles nobody told us (reported when the policy was loaded).
      if (rule.needsRoles && !rolesKnown) continue;
      let reason: string | undefined;
      try {
        if (subject === undefined || subjectOf !== current) {
          subject = matchSubject(input, current);
          subjectOf = current;
        }
        reason = whyNotMatched(rule.match, rule.exclude, subject);
      } catch (error) {
        (rules ??= []).push({ rule: rule.name, status: 'error', message: boundMessage(messageOf(error)), durationMs: 0 });
        continue;
      }
      if (reason !== undefined) continue;
      const stopped = guard.aborted;
      if (stopped) {
        // Past the deadline (or cancelled): the rule is answered by its policy's failurePolicy, unrun.
        (rules ??= []).push({ rule: rule.name, status: 'error', message: `not run: ${stopped.message}`, durationMs: 0 });
        aborted ??= stopped.reason;
        continue;
      }
      const { ctx } = open();
      const ruleStarted = now();
      scope ??= { ctx, isDelete: false, sources: input.sources ?? {}, policyId: policy.id, policyNamespace: policy.namespace, refreshObject, merges: session!.merges, heights: session!.heights };
      const checkpoint = ctx.checkpoint();
      const preset = input.ruleValues?.(policy.name, rule.name);
      if (preset) for (const [name, value] of Object.entries(preset)) ctx.addVariable(name, value);
      const running = runRule(rule, current, preset ? { ...scope, presetNames: new Set(Object.keys(preset)) } : scope);
      const result = running instanceof Promise ? await running : running;
      ctx.restore(checkpoint);
      (rules ??= []).push({ rule: rule.name, status: result.status, message: result.message, durationMs: elapsed(ruleStarted) });
      if (result.aborted) aborted ??= result.aborted;
      if (result.status === 'applied') {
        current = result.resource;
        refreshObject(current);
        if (policy.applyRules === 'One') break;
      }
    }
    if (rules === undefined) continue;
    const failedAny = anyFailed(rules);
    if (failedAny) {
      // Drop the policy's changes, and let the next policy see the object the API server will see.
      if (current !== start) {
        current = start;
        refreshObject(current);
      }
      if (policy.failurePolicy === 'Fail') {
        failures.push(`policy ${policy.id}: ${rules.filter((r) => r.status === 'error').map((r) => `rule ${r.rule} failed: ${r.message}`).join('; ')}`);
      }
    }
    const outcome: { -readonly [K in keyof KyvernoPolicyOutcome]: KyvernoPolicyOutcome[K] } = {
      policy: policy.id,
      failurePolicy: policy.failurePolicy,
      status: failedAny ? 'error' : current !== start ? 'applied' : 'skipped',
      rules,
      durationMs: elapsed(policyStarted),
    };
    if (aborted) outcome.aborted = aborted;
    outcomes.push(outcome);
    // A rule error is a warning whatever the policy says (engineapi.NewRuleResponse sets emitWarning for
    // errors); with spec.emitWarning every rule that did not skip is one.
    for (const r of rules) {
      if (r.status === 'error' || (policy.emitWarning && r.status !== 'skipped')) warnings.push(`policy ${policy.name}.${r.rule}: ${r.message}`);
    }
  }
  if (notify) notifyLastStarted(plan, notified, current, request, notify);
  const result: { -readonly [K in keyof KyvernoResult]: KyvernoResult[K] } = {
    object: current,
    changed: current !== original,
    policies: outcomes,
    warnings: failures.length > 0 ? [] : warnings,
  };
  if (failures.length > 0) result.rejection = { message: failures.join('; ') };
  return result;
}

/** Whether a rule failed (no array made: nearly every review has none). */
function anyFailed(rules: readonly KyvernoRuleOutcome[]): boolean {
  for (let i = 0; i < rules.length; i++) if (rules[i].status === 'error') return true;
  return false;
}

/**
 * The positions of the policies the request may match by the kind it is matched by (`matchSubject`'s,
 * which depends on the request alone); all of them should that kind not be found, so that whatever made
 * it fail fails each rule as before.
 */
function candidatesOf(plan: ReviewPlan, input: KyvernoInput): readonly number[] {
  let kind: unknown;
  try {
    kind = matchedKind(input).kind;
  } catch {
    return plan.admitted;
  }
  return plan.candidates(kind);
}

/** What runs a review's rules: its JSON context, size memo and strategic-merge and patch caches. */
interface Session {
  readonly ctx: JsonContext;
  readonly merges: StrategicMergeCache;
  readonly heights: PatchHeights;
}

function openSession(input: KyvernoInput, original: JsonValue, guard: ReviewGuard, needImages: boolean): Session {
  // The review's size memo (./measure.ts); the strategic merges hand it the sizes their normalizing walks found.
  // Weak: most values measured are garbage once read (query results, JMESPath's flattened lists), and a
  // foreach whose every element queries a list as long as its own would otherwise keep n² items alive.
  const sizes = new WeakMap<object, number>();
  // Kyverno's webhook reads `images` from the object it received (its loader keeps that resource) and
  // never again: rules and policies that change images leave `images` as it was.
  const images = needImages ? imagesOf(original) : undefined;
  const ctx = new JsonContext(input.query ?? kyvernoQuery, initialContext(input, original, images?.images), guard, sizes);
  ctx.imagesError = images?.error;
  // One budget for the review: Kyverno's mutating webhook runs every policy on one JSON context.
  ctx.budget = new ContextBudget(input.maxContextSize ?? DEFAULT_MAX_CONTEXT_SIZE);
  return { ctx, merges: new StrategicMergeCache({ memo: sizes, limit: guard.maxValueBytes }), heights: new PatchHeights() };
}

/**
 * The policies after the last candidate that ran were skipped unmatched; the progress slot is left at the
 * last of them that would have started (an admission policy whose namespace fits), as when every policy
 * was visited: a review stopped from outside after its loop (replying, out of heap) is answered from there.
 */
function notifyLastStarted(plan: ReviewPlan, notified: number, object: JsonValue, request: AdmissionRequest, notify: (index: number) => void): void {
  for (let at = plan.order.length - 1; at > notified; at--) {
    const policy = plan.order[at];
    if (policy.admission && namespaceFits(policy, object, request)) {
      notify(plan.indexOf.get(policy)!);
      return;
    }
  }
}

/** Milliseconds since `started`, to the microsecond. */
function elapsed(started: number): number {
  return Math.round((now() - started) * 1000) / 1000;
}

/**
 * The global `performance`, read once: Node defines it by an accessor, which every read of the global
 * calls (through an inline-cache miss), and a review times each rule and each policy.
 */
let clock: { now(): number } | undefined;

/** `performance.now()`. */
function now(): number {
  return (clock ??= performance).now();
}

const NONE: readonly string[] = Object.freeze([]);

const SA_PREFIX_BYTES = 'system:serviceaccount:'.length;
const utf8Encoder = new TextEncoder();
// ignoreBOM: a leading U+FEFF is data here, kept as Go keeps it.
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * [namespace, name] as Kyverno's AddServiceAccount (pkg/engine/context/context.go) reads them from any
 * username: it drops the first len("system:serviceaccount:") = 22 bytes without checking what they are,
 * splits the rest on ":" and, when there are at least two parts, takes the first two
 * ("arn:aws:sts::111122223333:assumed-role/admin/alice" gives "333" and "assumed-role/admin/alice").
 * Bytes of UTF-8: a cut inside a character leaves bytes that JSON turns into U+FFFD, as TextDecoder does.
 */
function serviceAccountOf(username: string): [string, string] {
  // ASCII (nearly every username): bytes are code units, so the string itself is cut, without encoding it.
  if (isAscii(username)) {
    if (username.length <= SA_PREFIX_BYTES) return ['', ''];
    const colon = username.indexOf(':', SA_PREFIX_BYTES);
    if (colon < 0) return ['', ''];
    const next = username.indexOf(':', colon + 1);
    return [username.slice(SA_PREFIX_BYTES, colon), username.slice(colon + 1, next < 0 ? username.length : next)];
  }
  const bytes = utf8Encoder.encode(username);
  if (bytes.length <= SA_PREFIX_BYTES) return ['', ''];
  const colon = bytes.indexOf(0x3a, SA_PREFIX_BYTES);
  if (colon < 0) return ['', ''];
  const next = bytes.indexOf(0x3a, colon + 1);
  const namespace = utf8Decoder.decode(bytes.subarray(SA_PREFIX_BYTES, colon));
  const name = utf8Decoder.decode(bytes.subarray(colon + 1, next < 0 ? bytes.length : next));
  return [namespace, name];
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function initialContext(input: KyvernoInput, object: JsonValue, images: JsonObject | undefined): JsonObject {
  const r = input.request;
  const request = shallowCopyObject(r as unknown as JsonObject);
  request.object = object;
  request.oldObject = r.oldObject ?? null;
  request.roles = (input.roles ?? NONE) as string[];
  request.clusterRoles = (input.clusterRoles ?? NONE) as string[];
  const [serviceAccountNamespace, serviceAccountName] = serviceAccountOf(r.userInfo?.username ?? '');
  const root: JsonObject = { request, serviceAccountName, serviceAccountNamespace };
  if (images) root.images = images;
  if (!input.values) return root;
  const ctx = new JsonContext(() => null, root);
  for (const [name, value] of Object.entries(input.values)) ctx.addVariable(name, value);
  return ctx.data;
}

/**
 * A namespaced Policy only applies to objects of its own namespace. A Namespace is in none, although the
 * API server sends an update of Namespace `x` with `request.namespace: x` (Kyverno compares the object's
 * own metadata.namespace).
 */
function namespaceFits(policy: CompiledKyvernoPolicy, object: JsonValue, request: AdmissionRequest): boolean {
  if (policy.namespace === undefined) return true;
  if (request.kind?.kind === 'Namespace' || (isJsonObject(object) && object.kind === 'Namespace')) return false;
  return objectNamespace(object, request.namespace ?? '') === policy.namespace;
}

/** The group, version and kind a request is matched by: a subresource request by its top-level resource's. */
function matchedKind(input: Pick<KyvernoInput, 'request' | 'resourceKind'>): { group: string; version: string; kind: string; subresource: string } {
  const r = input.request;
  const subresource = r.subResource ?? '';
  // A subresource request is matched by its top-level resource's kind (Pod for pods/binding), as Kyverno does.
  const parent =
    subresource !== '' && r.resource
      ? (builtinKindOfResource(r.resource.group, r.resource.resource) ?? input.resourceKind?.(r.resource.group, r.resource.resource))
      : undefined;
  if (parent !== undefined) return { group: r.resource.group, version: r.resource.version, kind: parent, subresource };
  return { group: r.kind?.group ?? '', version: r.kind?.version ?? '', kind: r.kind?.kind ?? '', subresource };
}

export function matchSubject(input: Pick<KyvernoInput, 'request' | 'namespaceLabels' | 'roles' | 'clusterRoles' | 'resourceKind'>, object: JsonValue): MatchSubject {
  const r = input.request;
  const user = r.userInfo ?? {};
  const { group, version, kind, subresource } = matchedKind(input);
  return {
    resource: isJsonObject(object) ? object : {},
    group,
    version,
    kind,
    subresource,
    operation: r.operation,
    namespace: r.namespace ?? '',
    namespaceLabels: input.namespaceLabels,
    username: user.username ?? '',
    groups: user.groups ?? [],
    roles: input.roles ?? [],
    clusterRoles: input.clusterRoles ?? [],
    hasUserInfo: (user.username ?? '') !== '' || (user.groups?.length ?? 0) > 0,
  };
}

/**
 * The policies with at least one rule whose `match`/`exclude` selects the request, from those blocks alone
 * (no preconditions, no context, no JMESPath): the cheap test that decides which policies not yet run are
 * answered by their failurePolicy once a review was stopped.
 */
export function policiesMatching(policies: readonly CompiledKyvernoPolicy[], input: Pick<KyvernoInput, 'request' | 'namespaceLabels' | 'resourceKind'>, object: JsonValue | null): CompiledKyvernoPolicy[] {
  const { request } = input;
  // Kyverno's mutating webhook leaves everything but CREATE and UPDATE alone.
  if (object === null || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return [];
  const subject = matchSubject(input, object);
  return policies.filter((policy) => {
    if (!policy.admission || !namespaceFits(policy, object, request)) return false;
    return policy.rules.some((rule) => {
      // A rule that needs the requester's roles is not run without them (runKyvernoPolicies).
      if (rule.needsRoles) return false;
      try {
        return whyNotMatched(rule.match, rule.exclude, subject) === undefined;
      } catch {
        // A fact the match needs is missing: the rule would fail, so the policy is answered.
        return true;
      }
    });
  });
}
