/**
 * One evaluation context (spec map.md §5.1, §7.5, §13): the activation of an admission request, the
 * lazily evaluated variables, and a cost budget shared by the expressions evaluated in it — all
 * matchConditions of one invocation (2,500,000) or one mutation (10,000,000). Each expression is also
 * limited to PerCallLimit (1,000,000) while it runs.
 */
import type { ReviewGuard } from '../../guard/index.js';
import type { JsonValue } from '../../json/index.js';
import { CelEvalError } from '../engine/errors.js';
import { jsonRoot } from '../engine/json.js';
import { AsyncResults, type Activation } from '../engine/eval-state.js';
import type { CelValue } from '../engine/values.js';
import { createAuthorizerValue, type Authorizer, type AuthorizerValue, type UserInfo } from '../lib/index.js';
import type { EvalOutcome } from '../engine/program.js';
import type { CompiledExpression } from './compile.js';
import { NO_EXCEPTIONS } from './types.js';
import { CompiledVariables, LazyVariables } from './variables.js';

export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;

/** Awaited calls per expression before giving up (each `check()` costs 350,000, so 3 fit PerCallLimit). */
const MAX_ASYNC_CALLS = 64;

export const OUT_OF_BUDGET_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** The inputs of an admission expression, as JSON documents. */
export interface AdmissionInput {
  /** The object being admitted; null when absent (DELETE, CONNECT without body). */
  readonly object?: JsonValue | null;
  readonly oldObject?: JsonValue | null;
  /** The AdmissionRequest attributes (kind, resource, name, namespace, operation, userInfo, ...). */
  readonly request?: JsonValue | null;
  /** The param object; null when the binding selects none. Only visible if the policy has paramKind. */
  readonly params?: JsonValue | null;
  /** The request's namespace (spec §7.3); null for cluster-scoped requests and in matchConditions. */
  readonly namespaceObject?: JsonValue | null;
  /**
   * Answers `check()` calls (a SubjectAccessReview in a webhook, a fake in tests). Without it,
   * `authorizer` and `authorizer.requestResource` evaluate to an error. If it returns promises,
   * use `evaluateAsync`.
   */
  readonly authorizer?: Authorizer;
}

export type EvalResult =
  | { ok: true; value: CelValue; cost: number }
  | {
      ok: false;
      message: string;
      /** 'budget': the shared budget ran out (the whole evaluation fails); 'runtime': this expression failed. */
      kind: 'runtime' | 'budget';
      cost: number;
    };

export interface EvaluationOptions {
  /** Cost budget shared by every expression evaluated in this context. */
  budget: number;
  variables?: CompiledVariables;
  /** Per-expression limit (default PerCallLimit 1,000,000). */
  perCallLimit?: number;
  /**
   * The review's deadline, cancellation and value-size bound. When it trips, `evaluate` throws its
   * ReviewAborted (never a CEL error value: `||` and comprehensions do not absorb it).
   */
  guard?: ReviewGuard;
  /**
   * Variables kept across evaluations (a Kyverno policy's, see SharedVariables): `variables` is then
   * ignored. Without it, each Evaluation evaluates the variables afresh (kube-apiserver's way).
   */
  shared?: SharedVariables;
}

/**
 * The variables of one Kyverno MutatingPolicy evaluation, shared by the Evaluations of its
 * matchConditions, mutations and audit annotations: each variable is evaluated once, on first use, on the
 * inputs of the evaluation that reads it first (the object as the earlier mutations left it), and keeps
 * its value or error for the rest of the policy (Kyverno's one lazy map per policy evaluation). Its cost
 * is charged once, to that evaluation's budget.
 */
export class SharedVariables {
  /** The activation of the evaluation running now: a variable evaluated now reads its inputs. */
  current: Activation | undefined;
  readonly lazy: LazyVariables;

  constructor(definitions: CompiledVariables, perCallLimit = PER_CALL_LIMIT) {
    this.lazy = new LazyVariables(definitions, { resolve: (name) => this.current?.resolve(name) }, perCallLimit);
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The requesting user, from `request.userInfo`. */
function userOf(request: Record<string, unknown>): UserInfo {
  const u = record(request.userInfo);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(record(u.extra))) if (Array.isArray(v)) extra[k] = v.map(String);
  return {
    username: str(u.username),
    uid: str(u.uid),
    groups: Array.isArray(u.groups) ? u.groups.map(String) : [],
    extra,
  };
}

class AdmissionActivation implements Activation {
  /** Made when an expression first reads `variables` (most read none: every MAP matchCondition). */
  variables?: LazyVariables;
  private object?: unknown;
  private oldObject?: unknown;
  private authz?: AuthorizerValue;

  constructor(
    private readonly input: AdmissionInput,
    private readonly definitions: CompiledVariables,
    private readonly perCallLimit: number,
    private readonly async: AsyncResults,
    shared?: SharedVariables,
  ) {
    if (shared) this.variables = shared.lazy;
  }

  private authorizerValue(name: string): AuthorizerValue {
    const input = this.input;
    if (!input.authorizer) throw new CelEvalError(`${name} is not available: no authorizer is configured for this evaluation`);
    if (!this.authz) {
      const request = record(input.request);
      // authorizer.requestResource checks the request's own resource (not an equivalent one).
      const gvr = record(request.requestResource ?? request.resource);
      this.authz = createAuthorizerValue(input.authorizer, userOf(request), {
        group: str(gvr.group),
        resource: str(gvr.resource),
        subresource: str(request.requestSubResource ?? request.subResource),
        namespace: str(request.namespace),
        name: str(request.name),
      });
    }
    return this.authz;
  }

  resolve(name: string): unknown {
    const input = this.input;
    switch (name) {
      case 'object':
        return (this.object ??= jsonRoot(input.object ?? null));
      case 'oldObject':
        return (this.oldObject ??= jsonRoot(input.oldObject ?? null));
      case 'request':
        return input.request ?? {};
      case 'namespaceObject':
        return input.namespaceObject ?? null;
      case 'params':
        return input.params === undefined ? null : jsonRoot(input.params);
      case 'variables':
        return (this.variables ??= new LazyVariables(this.definitions, this, this.perCallLimit, this.async));
      case 'authorizer':
        return this.authorizerValue(name);
      case 'authorizer.requestResource':
        return this.authorizerValue(name).requestResource;
      case 'exceptions':
        // Declared only in the Kyverno dialect; no PolicyException is ever read.
        return NO_EXCEPTIONS;
      default:
        return undefined;
    }
  }
}

/** Evaluates expressions against one admission input with a shared budget. */
export class Evaluation {
  private remaining: number;
  private readonly activation: AdmissionActivation;
  private readonly perCallLimit: number;
  private exhausted = false;
  private readonly async = new AsyncResults();
  private readonly guard: ReviewGuard | undefined;
  private readonly shared: SharedVariables | undefined;

  constructor(input: AdmissionInput, options: EvaluationOptions) {
    this.guard = options.guard;
    this.remaining = options.budget;
    this.perCallLimit = options.perCallLimit ?? PER_CALL_LIMIT;
    this.shared = options.shared;
    this.activation = new AdmissionActivation(input, options.variables ?? CompiledVariables.NONE_WITH_PARAMS, this.perCallLimit, this.async, this.shared);
  }

  get remainingBudget(): number {
    return this.remaining;
  }

  /**
   * Evaluates one compiled expression. Never throws, except the guard's ReviewAborted. An expression that calls an asynchronous
   * function (an authorizer returning promises) fails here; use `evaluateAsync` for those.
   */
  evaluate(compiled: CompiledExpression): EvalResult {
    if (this.exhausted) return { ok: false, message: OUT_OF_BUDGET_MESSAGE, kind: 'budget', cost: 0 };
    this.guard?.tick();
    if (this.shared) this.shared.current = this.activation;
    return this.account(compiled, compiled.program.evaluate(this.activation, this.perCallLimit, undefined, this.guard));
  }

  /**
   * Like `evaluate`, awaiting asynchronous calls: when a call returns a promise, the evaluation
   * stops, the promise is awaited, its result recorded for that call (by function and arguments),
   * and the expression evaluated again. Cost is that of the final, complete run. Never rejects, except
   * with the guard's ReviewAborted.
   */
  async evaluateAsync(compiled: CompiledExpression): Promise<EvalResult> {
    if (this.exhausted) return { ok: false, message: OUT_OF_BUDGET_MESSAGE, kind: 'budget', cost: 0 };
    for (let round = 0; ; round++) {
      this.guard?.tick();
      if (this.shared) this.shared.current = this.activation;
      const out = compiled.program.evaluate(this.activation, this.perCallLimit, this.async, this.guard);
      if (out.ok || !out.pending) return this.account(compiled, out);
      if (round >= MAX_ASYNC_CALLS) {
        return { ok: false, message: `expression '${compiled.expression}' resulted in error: too many asynchronous calls`, kind: 'runtime', cost: out.cost };
      }
      let value: unknown;
      try {
        value = await out.pending.promise;
      } catch (e) {
        return {
          ok: false,
          message: `expression '${compiled.expression}' resulted in error: ${e instanceof Error ? e.message : String(e)}`,
          kind: 'runtime',
          cost: out.cost,
        };
      }
      this.async.add(out.pending.overloadId, out.pending.args, value as CelValue);
    }
  }

  private account(compiled: CompiledExpression, out: EvalOutcome): EvalResult {
    // Variables evaluated lazily while running are charged first, then the expression itself.
    const variableCost = this.activation.variables === undefined ? 0 : this.activation.variables.takeCost();
    if (variableCost > this.remaining) return this.outOfBudget(out.cost);
    this.remaining -= variableCost;
    if (out.cost > this.remaining) return this.outOfBudget(out.cost);
    this.remaining -= out.cost;
    if (!out.ok) {
      return { ok: false, message: `expression '${compiled.expression}' resulted in error: ${out.error}`, kind: 'runtime', cost: out.cost };
    }
    return { ok: true, value: out.value, cost: out.cost };
  }

  private outOfBudget(cost: number): EvalResult {
    this.exhausted = true;
    this.remaining = -1;
    return { ok: false, message: OUT_OF_BUDGET_MESSAGE, kind: 'budget', cost };
  }
}
