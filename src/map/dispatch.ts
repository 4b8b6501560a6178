/**
 * One admission request through the MutatingAdmissionPolicies of a set (spec/map.md §0, §2–§6, §10,
 * §11): match policies and bindings, resolve params into invocations, run them in order (policy
 * name, binding name, param namespace/name), emulate the reinvocation pass, and collect errors under
 * each policy's failurePolicy. Mutation itself is the compiled policy's business (PolicyProgram).
 */
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../admission/index.js';
import { ReviewAborted, type AbortReason, type ReviewGuard } from '../guard/index.js';
import { jsonEqual, setOwn, type JsonObject, type JsonValue } from '../json/index.js';
import { checkJsonDepth } from '../jsonpatch/index.js';
import { MutationHistory } from './apply-mutation.js';
import { onlyItself, sameResource, type EquivalenceProvider } from './equivalence.js';
import { policyErrorText, StatusAbort, type PolicyError } from './errors.js';
import type { ConditionsVerdict } from './match-conditions.js';
import { matchResources, type MatchAttributes, type MatchError, type NamespaceLookup } from './match-resources.js';
import { allOrdinals, candidates, policyFilters } from './policy-filters.js';
import { surelyMisses } from './rule-filter.js';
import { resolveParamKind, resolveParams, type InvocationParam, type ParamSource, type ResolvedParamKind } from './params.js';
import type { LabelSelector } from './labels.js';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from './types.js';

/** What CEL sees for one invocation (spec/map.md §7.1). */
export interface InvocationInputs {
  object: JsonValue | null;
  oldObject: JsonValue | null;
  /** The `request` variable: admission attributes with the matched kind/resource. */
  request: JsonObject;
  /** The matched kind (as in `request`): the type mutations are applied and checked as. */
  kind: GroupVersionKind;
  params: InvocationParam;
  namespaceObject: JsonObject | null;
  /** What the request's earlier mutations learned about the objects they produced (one per request). */
  history?: MutationHistory;
  /** The review's deadline and size bound; its ReviewAborted is thrown out of conditions/mutation. */
  guard?: ReviewGuard;
  /** The object as the request carried it (before any mutation): Kyverno's `request.object`. */
  requestObject?: JsonValue | null;
}

export type MutationOutcome =
  | { ok: true; object: JsonValue }
  | { ok: false; message: string; abort?: undefined }
  | { ok: false; abort: StatusAbort; message?: undefined };

/** A compiled policy as the dispatcher drives it. */
export interface PolicyProgram {
  readonly mutationCount: number;
  conditions(inputs: InvocationInputs): ConditionsVerdict;
  /** Whether the conditions surely read the same values in both objects (all else equal); optional. */
  conditionsReadSame?(a: JsonValue | null, b: JsonValue | null): boolean;
  /** Evaluates and applies mutation `index` to `inputs.object`; never changes its inputs. */
  mutation(index: number, inputs: InvocationInputs): MutationOutcome;
  /** After the mutations succeeded, on the mutated object: an error message fails the invocation (Kyverno's audit annotations). */
  afterMutations?(inputs: InvocationInputs): string | undefined;
}

/**
 * A Kyverno MutatingPolicy / NamespacedMutatingPolicy run by this dispatcher: it acts on its own
 * matchConstraints (one implicit binding without params) and, when namespaced, only on requests in its
 * namespace. Its traces and errors name no binding.
 */
export interface KyvernoOrigin {
  readonly kind: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  /** The namespace of a NamespacedMutatingPolicy. */
  readonly namespace?: string;
  /** The policy's metadata.name. */
  readonly name: string;
  /** Set for a policy autogen derived for pod controllers: `defaults` (spec.template) or `cronjobs`. */
  readonly autogen?: 'defaults' | 'cronjobs';
}

export interface BoundPolicy {
  readonly policy: MutatingAdmissionPolicy;
  /** Set for a Kyverno MutatingPolicy (see KyvernoOrigin); absent for a MutatingAdmissionPolicy. */
  readonly kyverno?: KyvernoOrigin;
  /** Sorted by name. */
  readonly bindings: readonly MutatingAdmissionPolicyBinding[];
  readonly program: PolicyProgram;
}

export interface DispatchContext {
  params: ParamSource;
  namespaces: NamespaceLookup;
  /** Match an unknown namespace by a stand-in (match-resources.ts); `namespaceObject` stays null. */
  namespaceStandIn?: boolean;
  equivalence: EquivalenceProvider;
  /** Run the emulated reinvocation pass (spec/map.md §11). Default true. */
  reinvocation?: boolean;
  /**
   * The review's deadline, cancellation and size bound. A size error fails the invocation in progress
   * (its failurePolicy decides); a deadline or cancellation fails it and answers every invocation not yet
   * run by its failurePolicy without evaluating anything (Fail: an error; Ignore: skipped, reported).
   */
  guard?: ReviewGuard;
  /** Called before each invocation with its policy's index in the `policies` given to dispatch. */
  onPolicyStart?: (index: number) => void;
  /**
   * What the detail of an invocation answered without running says before the stop's message (default
   * `not evaluated`): the answer of a stopped review says otherwise of the policies that had completed.
   */
  notRunPrefix?: string;
}

/** What happened to one invocation (or one configuration error), for traces and audit annotations. */
export interface InvocationTrace {
  policy: string;
  /** Set when the policy is a Kyverno MutatingPolicy (its kind); absent for a MutatingAdmissionPolicy. */
  policyKind?: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  binding?: string;
  param?: { namespace: string; name: string };
  /** 1 = the first pass, 2 = the emulated reinvocation pass. */
  pass: 1 | 2;
  result: 'mutated' | 'unchanged' | 'skipped' | 'error';
  /** Why it was skipped (`matchCondition "x" is false`), or the error texts. */
  detail?: string;
  /** An error of a failurePolicy=Ignore policy, dropped as the reference drops it. */
  ignored?: boolean;
  /** The failurePolicy of the trace's policy (set on every trace the dispatcher writes). */
  failurePolicy?: 'Fail' | 'Ignore';
  /** Wall time of the invocation in milliseconds (performance.now); absent when nothing ran. */
  durationMs?: number;
  /** Set when the review guard stopped this invocation, or answered it without running it. */
  aborted?: AbortReason;
}

export type DispatchResult =
  | { object: JsonValue | null; errors: PolicyError[]; traces: InvocationTrace[]; abort?: undefined }
  | { abort: StatusAbort; traces: InvocationTrace[]; object?: undefined; errors?: undefined };

const POLICY_RESOURCES = new Set([
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
]);

type TraceOrigin = Omit<InvocationTrace, 'result' | 'detail' | 'ignored' | 'failurePolicy' | 'durationMs' | 'aborted'> & {
  failurePolicy: 'Fail' | 'Ignore';
};

/**
 * A trace record with the keys in the order `{...origin, result, detail, ignored}` gives, built member by
 * member: an object spread of origins of several shapes takes V8's slow generic path (about 1 µs each).
 */
function traceRecord(origin: TraceOrigin, result: InvocationTrace['result'], detail?: string, ignored?: boolean, durationMs?: number, aborted?: AbortReason): InvocationTrace {
  const t: InvocationTrace = { policy: origin.policy } as InvocationTrace;
  if (origin.policyKind !== undefined) t.policyKind = origin.policyKind;
  if (origin.binding !== undefined) t.binding = origin.binding;
  if (origin.param !== undefined) t.param = origin.param;
  t.pass = origin.pass;
  t.result = result;
  if (detail !== undefined) t.detail = detail;
  if (ignored) t.ignored = true;
  t.failurePolicy = origin.failurePolicy;
  if (durationMs !== undefined) t.durationMs = durationMs;
  if (aborted !== undefined) t.aborted = aborted;
  return t;
}

/**
 * The group/resources kube-apiserver never hands to an admission policy (its
 * pkg/kubeapiserver/admission/exclusion `Excluded()`, skipped by the policy plugin's Dispatch before any
 * hook): the non-persisted authentication and authorization reviews, which a policy must not be able to
 * break. Every version and subresource, as the list names group/resource only. Kyverno's MutatingPolicies
 * are not run by kube-apiserver, so the list is not theirs (Kyverno filters by its own resourceFilters).
 */
const EXCLUDED_RESOURCES = new Set([
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
]);

function isExcludedResource(resource: AdmissionRequest['resource']): boolean {
  // The group first: the key is built (a string per review) only for the two groups the list names.
  const group = resource.group;
  if (group !== 'authentication.k8s.io' && group !== 'authorization.k8s.io') return false;
  return EXCLUDED_RESOURCES.has(`${group}/${resource.resource}`);
}

/** §0: only CREATE, UPDATE and CONNECT, and never the admission-policy resources themselves. */
export function isMutableRequest(request: AdmissionRequest): boolean {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE' && request.operation !== 'CONNECT') return false;
  return !(request.resource.group === 'admissionregistration.k8s.io' && POLICY_RESOURCES.has(request.resource.resource));
}

export function matchAttributes(request: AdmissionRequest): MatchAttributes {
  return {
    operation: request.operation,
    kind: request.kind,
    resource: request.resource,
    subResource: request.subResource ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? '',
    object: request.object ?? null,
    oldObject: request.oldObject ?? null,
  };
}

/** The `request` CEL variable (`CreateAdmissionRequest`): uid, object and oldObject are not part of it. */
export function celRequest(request: AdmissionRequest, kind: GroupVersionKind, resource: GroupVersionResource): JsonObject {
  const userInfo: JsonObject = {
    username: request.userInfo?.username ?? '',
    uid: request.userInfo?.uid ?? '',
    groups: [...(request.userInfo?.groups ?? [])],
  };
  if (request.userInfo?.extra) {
    const extra: JsonObject = {};
    for (const [k, v] of Object.entries(request.userInfo.extra)) setOwn(extra, k, [...v]);
    userInfo.extra = extra;
  }
  const out: JsonObject = {
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    subResource: request.subResource ?? '',
    requestKind: { ...(request.requestKind ?? request.kind) },
    requestResource: { ...(request.requestResource ?? request.resource) },
    requestSubResource: request.requestSubResource ?? request.subResource ?? '',
    name: request.name ?? '',
    namespace: request.namespace ?? '',
    operation: request.operation,
    userInfo,
    dryRun: request.dryRun ?? false,
  };
  if (request.options !== undefined && request.options !== null) out.options = request.options;
  return out;
}

/**
 * What running an invocation did: its object; `ran`, whether it got past its matchConditions (kube-apiserver
 * then counts an IfNeeded one as invoked); `applied`, whether any of its mutations was applied (even one
 * that changed nothing: kube-apiserver's versioned attributes are then Dirty, which requests the
 * reinvocation pass).
 */
interface Invoked {
  object: JsonValue | null;
  ran: boolean;
  applied: boolean;
}

function sameGvk(a: GroupVersionKind, b: GroupVersionKind): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

interface Invocation {
  bound: BoundPolicy;
  /** The policy's index in the list given to dispatch. */
  ordinal: number;
  binding: MutatingAdmissionPolicyBinding;
  param: InvocationParam;
  request: JsonObject;
  kind: GroupVersionKind;
  /**
   * The object the first pass evaluated this invocation's matchConditions on without an error (NOT_SEEN
   * when it did not): the second pass need not evaluate them again on that very object.
   */
  conditionsSaw: JsonValue | null | typeof NOT_SEEN;
}

/** Invocation.conditionsSaw before any evaluation of its conditions. */
const NOT_SEEN: unique symbol = Symbol('not seen');

/** The binding an invocation's errors name: none for a Kyverno MutatingPolicy (it has no binding). */
function bindingLabel(inv: Invocation): string | undefined {
  return inv.bound.kyverno ? undefined : inv.binding.name;
}

function failurePolicyOf(policy: MutatingAdmissionPolicy): 'Fail' | 'Ignore' {
  return policy.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
}

function paramIdentity(p: InvocationParam): { namespace: string; name: string } | undefined {
  return p.declared && p.param ? { namespace: p.param.namespace, name: p.param.name } : undefined;
}

/**
 * The reinvocation key of an invocation (kube-apiserver's keyFor: policy, binding, param namespace/name),
 * the same for the invocation collected again in the second pass. The policy's index stands for the
 * policy (a Kyverno NamespacedMutatingPolicy's name is not unique across namespaces).
 */
function invocationKey(inv: Invocation): string {
  const param = paramIdentity(inv.param);
  return param ? `${inv.ordinal}\u0000${inv.binding.name}\u0000${param.namespace}\u0000${param.name}` : `${inv.ordinal}\u0000${inv.binding.name}`;
}

/** How the second pass matches: against the first pass's result, reusing its invocations where it can. */
interface SecondMatch {
  object: JsonValue | null;
  /** The policies the pass needs at all (a marked invocation, or conditions that could deny). */
  include: (bound: BoundPolicy, ordinal: number) => boolean;
  /** The first pass's invocations by policy ordinal. */
  first: ReadonlyMap<number, readonly Invocation[]>;
  /** A request for a Namespace: namespaceSelectors read the object's own labels. */
  namespaceRequest: boolean;
}

function selects(selector: LabelSelector | null | undefined): boolean {
  return !!selector && ((selector.matchLabels !== undefined && Object.keys(selector.matchLabels).length > 0) || (selector.matchExpressions?.length ?? 0) > 0);
}

const labelReaders = new WeakMap<BoundPolicy, boolean>();

/**
 * Whether matching the policy reads the object: an object selector of its constraints or of a binding, or
 * (Kyverno) resource names matched by the object's generateName.
 */
function readsObjectLabels(bound: BoundPolicy): boolean {
  let reads = labelReaders.get(bound);
  if (reads === undefined) {
    reads = bound.kyverno !== undefined || selects(bound.policy.matchConstraints?.objectSelector) || bound.bindings.some((b) => selects(b.matchResources?.objectSelector));
    labelReaders.set(bound, reads);
  }
  return reads;
}

const anyLabelReaders = new WeakMap<readonly BoundPolicy[], boolean>();

/** Whether matching any of the policies reads the object (readsObjectLabels), remembered per list of a set. */
function anyReadsObjectLabels(policies: readonly BoundPolicy[]): boolean {
  let reads = anyLabelReaders.get(policies);
  if (reads === undefined) {
    reads = policies.some(readsObjectLabels);
    anyLabelReaders.set(policies, reads);
  }
  return reads;
}

/** Whether the policy's matchConditions can deny a request (kube-apiserver drops the errors of Ignore policies). */
function conditionsCanFail(policy: MutatingAdmissionPolicy): boolean {
  return failurePolicyOf(policy) === 'Fail' && policy.matchConditions.length > 0;
}

class Dispatcher {
  readonly errors: PolicyError[] = [];
  readonly traces: InvocationTrace[] = [];

  /** One chain of objects per request: each mutation starts from the previous one's result. */
  private readonly history: MutationHistory;

  constructor(private readonly request: AdmissionRequest, private readonly ctx: DispatchContext) {
    this.history = new MutationHistory(request.object ?? null, request.kind);
  }

  private fail(
    policy: MutatingAdmissionPolicy,
    binding: string | undefined,
    reason: PolicyError['reason'],
    message: string,
    trace: TraceOrigin,
    durationMs?: number,
    aborted?: AbortReason,
  ): void {
    const failurePolicy = failurePolicyOf(policy);
    const text = policyErrorText(policy.name, binding, message);
    if (failurePolicy === 'Fail') this.errors.push({ policy: policy.name, ...(binding !== undefined ? { binding } : {}), failurePolicy, reason, message: text });
    this.traces.push(traceRecord(trace, 'error', text, failurePolicy === 'Ignore', durationMs, aborted));
  }

  private configError(policy: MutatingAdmissionPolicy, binding: string | undefined, err: MatchError | string, policyKind?: InvocationTrace['policyKind']): void {
    const message = typeof err === 'string' ? err : err.message;
    const prefixed = binding === undefined ? `failed to configure policy: ${message}` : `failed to configure binding: ${message}`;
    // A Kyverno MutatingPolicy's error is named by its kind, as its other traces are (trace()).
    const origin: TraceOrigin = { policy: policy.name, ...(policyKind !== undefined ? { policyKind } : {}), ...(binding !== undefined ? { binding } : {}), pass: this.pass, failurePolicy: failurePolicyOf(policy) };
    this.fail(policy, binding, 'Forbidden', prefixed, origin);
  }

  /**
   * An invocation the review guard stopped before it ran: answered by its failurePolicy without
   * evaluating anything (Fail: an error naming the policy; Ignore: skipped and reported).
   */
  private notRun(inv: Invocation, pass: 1 | 2, stop: ReviewAborted): void {
    const trace = this.trace(inv, pass);
    const message = `${this.ctx.notRunPrefix ?? 'not evaluated'}: ${stop.message}`;
    if (trace.failurePolicy === 'Fail') this.fail(inv.bound.policy, bindingLabel(inv), 'Forbidden', message, trace, 0, stop.reason);
    else this.traces.push(traceRecord(trace, 'skipped', message, true, 0, stop.reason));
  }

  private readonly requests: { kind: GroupVersionKind; resource: GroupVersionResource; value: JsonObject }[] = [];

  /** The `request` variable for a matched kind/resource (usually one per request, so a short list). */
  private celRequestFor(kind: GroupVersionKind, resource: GroupVersionResource): JsonObject {
    for (const r of this.requests) {
      if (sameGvk(r.kind, kind) && sameResource(r.resource, resource)) return r.value;
    }
    const value = celRequest(this.request, kind, resource);
    this.requests.push({ kind, resource, value });
    return value;
  }

  /** The pass being run: 1, or 2 for the emulated reinvocation pass. */
  private pass: 1 | 2 = 1;

  /**
   * §2–§4: the invocations of this request, in order. `object`: the object to match as (the second pass
   * matches the object the first produced, as kube-apiserver's second Dispatch does); default the received one.
   */
  collect(policies: readonly BoundPolicy[], again?: SecondMatch): Invocation[] {
    const attr = matchAttributes(this.request);
    if (again) attr.object = again.object;
    const matcher = { equivalence: this.ctx.equivalence, namespaces: this.ctx.namespaces, namespaceStandIn: this.ctx.namespaceStandIn };
    const invocations: Invocation[] = [];
    const excluded = isExcludedResource(this.request.resource);
    // Most policies of a large set miss a request by its operation, group, version or resource: their
    // rule filters say so before the exact matcher runs (rule-filter.ts).
    const filters = policyFilters(policies);
    const ownOnly = onlyItself(this.ctx.equivalence, attr.resource, attr.subResource);
    // Where a miss by the filters is exact, only the policies whose rules list the request's group are
    // visited; the others would be skipped below (in the second pass too: they had no invocation).
    const order = ownOnly ? candidates(policies, attr.resource.group) : allOrdinals(policies);
    for (let i = 0; i < order.length; i++) {
      const ordinal = order[i];
      const bound = policies[ordinal];
      const { policy } = bound;
      if (again) {
        if (!again.include(bound, ordinal)) continue;
        // Matching reads the object only through object selectors (and a Namespace's own labels): a
        // policy with none matches as it did in the first pass.
        if (!again.namespaceRequest && !readsObjectLabels(bound)) {
          for (const inv of again.first.get(ordinal) ?? []) invocations.push(inv);
          continue;
        }
      }
      if (bound.bindings.length === 0 || !policy.matchConstraints) continue;
      if (excluded && bound.kyverno === undefined) continue;
      // A NamespacedMutatingPolicy acts only on requests in its own namespace.
      if (bound.kyverno?.namespace !== undefined && bound.kyverno.namespace !== attr.namespace) continue;
      const filter = filters[ordinal];
      if (surelyMisses(policy.matchConstraints, filter.constraints, attr.operation, attr.resource, attr.subResource, ownOnly)) continue;
      const m = matchResources(policy.matchConstraints, attr, matcher);
      if (!m.matches) {
        if (m.error) this.configError(policy, undefined, m.error, bound.kyverno?.kind);
        continue;
      }
      let paramKind: ResolvedParamKind | undefined;
      if (policy.paramKind) {
        const resolved = resolveParamKind(policy.paramKind, this.ctx.params);
        if ('error' in resolved) {
          this.configError(policy, undefined, resolved.error);
          continue;
        }
        paramKind = resolved;
      }
      const request = this.celRequestFor(m.kind, m.resource);
      // An index loop: the bindings list is frozen, which for-of iterates slowly.
      for (let b = 0; b < bound.bindings.length; b++) {
        const binding = bound.bindings[b];
        if (binding.matchResources) {
          if (surelyMisses(binding.matchResources, filter.bindings[b], attr.operation, attr.resource, attr.subResource, ownOnly)) continue;
          const own = matchResources(binding.matchResources, attr, matcher);
          if (!own.matches) {
            if (own.error) this.configError(policy, binding.name, own.error);
            continue;
          }
        }
        const resolved = resolveParams(paramKind, binding, attr.namespace, this.ctx.params);
        if ('error' in resolved) {
          this.configError(policy, binding.name, resolved.error);
          continue;
        }
        // An index loop here too: a policy without paramKind shares one frozen list of params.
        const params = resolved.params;
        for (let p = 0; p < params.length; p++) invocations.push({ bound, ordinal, binding, param: params[p], request, kind: m.kind, conditionsSaw: NOT_SEEN });
      }
    }
    return invocations;
  }

  private namespaceObject(): JsonObject | null {
    const ns = this.request.namespace ?? '';
    if (ns === '' || (this.request.resource.group === '' && this.request.resource.resource === 'namespaces')) return null;
    return this.ctx.namespaces(ns) ?? null;
  }

  /**
   * Runs one invocation against `object`; returns the new object, or a StatusAbort. When the review
   * guard stops it, the invocation fails (its failurePolicy decides) and leaves `object` as it was.
   */
  private invoke(inv: Invocation, object: JsonValue | null, namespaceObject: JsonObject | null, pass: 1 | 2): Invoked | StatusAbort {
    this.ctx.onPolicyStart?.(inv.ordinal);
    // Invocations run back to back: the clock read that ended the previous one starts this one.
    const started = this.clock ?? performance.now();
    this.clock = undefined;
    try {
      return this.invokeUnguarded(inv, object, namespaceObject, pass, started);
    } catch (err) {
      if (!(err instanceof ReviewAborted)) throw err;
      // A size error fails this invocation only; a deadline or cancellation stops the review.
      if (err.reason !== 'size') this.stop = err;
      const trace = this.trace(inv, pass);
      this.fail(inv.bound.policy, bindingLabel(inv), 'Forbidden', err.message, trace, performance.now() - started, err.reason);
      return { object, ran: false, applied: false };
    }
  }

  /**
   * The second pass for an invocation it does not run: kube-apiserver evaluates every invocation's
   * matchConditions before it checks whether to reinvoke it, so an error there (under Fail) denies.
   * Only a Fail policy's conditions are evaluated: an Ignore policy's error would be dropped.
   */
  private conditionsOnly(inv: Invocation, object: JsonValue | null, namespaceObject: JsonObject | null): void {
    this.ctx.onPolicyStart?.(inv.ordinal);
    const started = this.clock ?? performance.now();
    this.clock = undefined;
    try {
      const verdict = inv.bound.program.conditions(this.inputsFor(inv, object, namespaceObject));
      const elapsed = this.elapsedSince(started);
      if (!verdict.matches && 'error' in verdict) this.fail(inv.bound.policy, bindingLabel(inv), 'Invalid', verdict.error, this.trace(inv, 2), elapsed);
    } catch (err) {
      if (!(err instanceof ReviewAborted)) throw err;
      if (err.reason !== 'size') this.stop = err;
      this.fail(inv.bound.policy, bindingLabel(inv), 'Forbidden', err.message, this.trace(inv, 2), performance.now() - started, err.reason);
    }
  }

  /**
   * Whether the first pass evaluated the invocation's matchConditions without an error on `object`, or on
   * an object holding the same values wherever the conditions read it: the same invocation (so the same
   * request, params and oldObject) then gives the same verdict again, as CEL is deterministic.
   */
  private sameConditionInputs(inv: Invocation, object: JsonValue | null): boolean {
    const saw = inv.conditionsSaw;
    if (saw === NOT_SEEN) return false;
    if (saw === object) return true;
    const program = inv.bound.program;
    return program.conditionsReadSame !== undefined && program.conditionsReadSame(saw, object);
  }

  /** What an invocation's expressions see, on `object`. */
  private inputsFor(inv: Invocation, object: JsonValue | null, namespaceObject: JsonObject | null): InvocationInputs {
    return {
      object,
      oldObject: this.request.oldObject ?? null,
      request: inv.request,
      kind: inv.kind,
      params: inv.param,
      // The program hides it from a MutatingAdmissionPolicy's conditions (§5.2); Kyverno's see it.
      namespaceObject,
      history: this.history,
      guard: this.ctx.guard,
      requestObject: this.request.object ?? null,
    };
  }

  /** The time the last invocation ended, when nothing else ran since. */
  private clock: number | undefined;

  /** Milliseconds since `started`; the reading also starts the next invocation. */
  private elapsedSince(started: number): number {
    const now = performance.now();
    this.clock = now;
    return now - started;
  }

  private invokeUnguarded(
    inv: Invocation,
    object: JsonValue | null,
    namespaceObject: JsonObject | null,
    pass: 1 | 2,
    started: number,
  ): Invoked | StatusAbort {
    const { policy, program } = inv.bound;
    const inputs = this.inputsFor(inv, object, namespaceObject);
    const verdict = program.conditions(inputs);
    if (verdict.matches || (!('error' in verdict) && verdict.ignoredError === undefined)) inv.conditionsSaw = object;
    if (!verdict.matches) {
      const trace = this.trace(inv, pass);
      const elapsed = this.elapsedSince(started);
      if ('error' in verdict) this.fail(policy, bindingLabel(inv), 'Invalid', verdict.error, trace, elapsed);
      // Skipped under failurePolicy Ignore: reported as the error it is (logged as ignored), not as a non-match.
      else if (verdict.ignoredError !== undefined) this.fail(policy, bindingLabel(inv), 'Invalid', verdict.ignoredError, trace, elapsed);
      else {
        const why = verdict.failedConditionName ? `matchCondition "${verdict.failedConditionName}" is false` : 'matchConditions not met';
        this.traces.push(traceRecord(trace, 'skipped', why, false, elapsed));
      }
      return { object, ran: false, applied: false };
    }
    const before = object;
    let messages: string[] | undefined;
    let applied = false;
    // Without an object (a CONNECT request without one) kube-apiserver calls no patcher: its mutations are
    // neither run nor an error (dispatchInvocations). Kyverno's MutatingPolicy keeps its own behaviour.
    const mutationCount = object === null && !inv.bound.kyverno ? 0 : program.mutationCount;
    for (let i = 0; i < mutationCount; i++) {
      inputs.object = object;
      const outcome = program.mutation(i, inputs);
      if (outcome.ok) {
        // Too deep an object fails this invocation (a size error, see invoke), before anything walks it.
        checkJsonDepth(outcome.object, 'the object a mutation produced', object);
        object = outcome.object as JsonValue | null;
        applied = true;
      } else if (outcome.abort) return outcome.abort;
      else {
        (messages ??= []).push(outcome.message);
        // Kyverno's evaluate returns at its first failing patcher (mpol/compiler/policy.go): later ones never run.
        if (inv.bound.kyverno) break;
      }
    }
    if (!messages && program.afterMutations) {
      inputs.object = object;
      const message = program.afterMutations(inputs);
      if (message !== undefined) messages = [message];
    }
    const trace = this.trace(inv, pass);
    const result = messages ? 'error' : before === object || jsonEqual(before, object) ? 'unchanged' : 'mutated';
    const elapsed = this.elapsedSince(started);
    if (messages) for (const message of messages) this.fail(policy, bindingLabel(inv), 'Invalid', message, trace, elapsed);
    else this.traces.push(traceRecord(trace, result, undefined, false, elapsed));
    // A Kyverno MutatingPolicy that fails keeps none of its changes (Kyverno's engine returns no patched
    // resource for an evaluation error); kube-apiserver keeps what a MAP's earlier mutations did.
    if (messages && inv.bound.kyverno) return { object: before, ran: true, applied: false };
    return { object, ran: true, applied };
  }

  private trace(inv: Invocation, pass: 1 | 2): TraceOrigin {
    const param = paramIdentity(inv.param);
    const policy = inv.bound.policy;
    const failurePolicy = failurePolicyOf(policy);
    return param
      ? { policy: policy.name, binding: inv.binding.name, param, pass, failurePolicy }
      : inv.bound.kyverno
        ? { policy: policy.name, policyKind: inv.bound.kyverno.kind, pass, failurePolicy }
        : { policy: policy.name, binding: inv.binding.name, pass, failurePolicy };
  }

  /** Why the review stopped (deadline, cancellation), once it has: later invocations do not run. */
  private stop: ReviewAborted | undefined;

  /**
   * The guard's reason to stop, once the deadline passed or the review was cancelled. Between
   * invocations the guard is ticked (its clock is read every few hundred ticks; a long invocation reads
   * it on CEL's cost path), so the normal path costs no clock read here.
   */
  private stopped(): ReviewAborted | undefined {
    const guard = this.ctx.guard;
    if (this.stop === undefined && guard !== undefined) {
      try {
        guard.tick();
      } catch (err) {
        if (!(err instanceof ReviewAborted)) throw err;
        this.stop = err;
      }
    }
    return this.stop;
  }

  run(policies: readonly BoundPolicy[], invocations: readonly Invocation[], start: JsonValue | null): { object: JsonValue | null } | StatusAbort {
    if (invocations.length === 0) return { object: start };
    const namespaceObject = this.namespaceObject();
    let object = start;
    /** The keys of the IfNeeded invocations that ran: those the second pass runs again. */
    const marked = new Set<string>();
    /** The ordinals of their policies. */
    const markedOrdinals = new Set<number>();
    let applied = false;
    for (const inv of invocations) {
      const stop = this.stopped();
      if (stop) {
        this.notRun(inv, 1, stop);
        continue;
      }
      const r = this.invoke(inv, object, namespaceObject, 1);
      if (r instanceof StatusAbort) return r;
      object = r.object;
      if (r.applied) applied = true;
      if (r.ran && inv.bound.policy.reinvocationPolicy === 'IfNeeded') {
        marked.add(invocationKey(inv));
        markedOrdinals.add(inv.ordinal);
      }
    }
    // §11: the reinvocation pass, once any mutation of the first pass was applied. kube-apiserver
    // (mutating/dispatcher.go) marks the IfNeeded invocations that ran before each invocation that
    // changed the object, and at the end of the pass, when the object was touched at all (Dirty), marks
    // every one still unmarked and requests the pass: so a later policy undoing an earlier one's change
    // (no net change) still reinvokes it, and so does a mutation that changed nothing. After the guard
    // stopped the first pass, every invocation has had its answer: no second pass. Nor after an error
    // under failurePolicy Fail: kube-apiserver's first pass already denied the request (the reinvoker
    // returns the chain's error before reinvoking), so each error is reported once.
    if (this.ctx.reinvocation === false || !applied || this.errors.length > 0 || this.stopped()) return { object };
    // The pass is a second Dispatch of the policy plugin: invocations matched again against the object
    // the first produced, every invocation's matchConditions evaluated, and only the marked ones run
    // (invocations skipped in the first pass never run in it; Never-policies never run twice). Without a
    // marked invocation or a condition that could deny, it would change nothing: not run.
    // Kyverno's MutatingPolicies are not part of it: Kyverno runs each once, in a webhook it registers
    // without reinvocation.
    const include = (b: BoundPolicy, ordinal: number) => b.kyverno === undefined && (markedOrdinals.has(ordinal) || conditionsCanFail(b.policy));
    if (!policies.some(include)) return { object };
    const r = this.request.resource;
    const namespaceRequest = r.group === '' && r.resource === 'namespaces';
    this.pass = 2;
    let again: readonly Invocation[];
    if (!namespaceRequest && !anyReadsObjectLabels(policies)) {
      // Every policy matches as it did in the first pass (see collect): its invocations, in their order.
      again = invocations.filter((inv) => include(inv.bound, inv.ordinal));
    } else {
      const first = new Map<number, Invocation[]>();
      for (const inv of invocations) {
        const list = first.get(inv.ordinal);
        if (list) list.push(inv);
        else first.set(inv.ordinal, [inv]);
      }
      again = this.collect(policies, { object, include, first, namespaceRequest });
    }
    for (const inv of again) {
      if (marked.size > 0 && marked.has(invocationKey(inv))) {
        const stop = this.stopped();
        if (stop) {
          this.notRun(inv, 2, stop);
          continue;
        }
        const r = this.invoke(inv, object, namespaceObject, 2);
        if (r instanceof StatusAbort) return r;
        object = r.object;
      } else if (conditionsCanFail(inv.bound.policy) && !this.sameConditionInputs(inv, object) && !this.stopped()) {
        this.conditionsOnly(inv, object, namespaceObject);
      }
    }
    return { object };
  }
}

export function dispatch(policies: readonly BoundPolicy[], request: AdmissionRequest, ctx: DispatchContext): DispatchResult {
  const start = request.object ?? null;
  if (!isMutableRequest(request)) return { object: start, errors: [], traces: [] };
  const d = new Dispatcher(request, ctx);
  const invocations = d.collect(policies);
  const r = d.run(policies, invocations, start);
  if (r instanceof StatusAbort) return { abort: r, traces: d.traces };
  return { object: r.object, errors: d.errors, traces: d.traces };
}
