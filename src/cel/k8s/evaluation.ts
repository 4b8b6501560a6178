/**
 * One evaluation context (spec map.md §5.1, §7.5, §13): the activation of an admission request, the
 * lazily evaluated variables, and a cost budget shared by the expressions evaluated in it — all
 * matchConditions of one invocation (2,500,000) or one mutation (10,000,000). Each expression is also
 * limited to PerCallLimit (1,000,000) while it runs.
 */
import type { JsonValue } from '../../json/index.js';
import { CelEvalError } from '../engine/errors.js';
import { jsonRoot } from '../engine/json.js';
import type { Activation } from '../engine/planner.js';
import type { CelValue } from '../engine/values.js';
import type { CompiledExpression } from './compile.js';
import { CompiledVariables, LazyVariables } from './variables.js';

export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;

export const OUT_OF_BUDGET_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run';

/**
 * Builds the CEL values of `authorizer` and `authorizer.requestResource` (the authz library knows
 * their types); supplied by the caller when a live or fake authorizer is configured.
 */
export interface CelAuthorizerBinding {
  authorizer(): CelValue;
  requestResource(): CelValue;
}

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
  readonly authorizer?: CelAuthorizerBinding;
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
}

class AdmissionActivation implements Activation {
  variables?: LazyVariables;
  private object?: unknown;
  private oldObject?: unknown;

  constructor(private readonly input: AdmissionInput) {}

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
        return this.variables;
      case 'authorizer':
        if (!input.authorizer) throw new CelEvalError('authorizer is not available: no authorizer is configured for this evaluation');
        return input.authorizer.authorizer();
      case 'authorizer.requestResource':
        if (!input.authorizer) throw new CelEvalError('authorizer.requestResource is not available: no authorizer is configured for this evaluation');
        return input.authorizer.requestResource();
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

  constructor(input: AdmissionInput, options: EvaluationOptions) {
    this.remaining = options.budget;
    this.perCallLimit = options.perCallLimit ?? PER_CALL_LIMIT;
    this.activation = new AdmissionActivation(input);
    this.activation.variables = new LazyVariables(
      options.variables ?? CompiledVariables.NONE_WITH_PARAMS,
      this.activation,
      this.perCallLimit,
    );
  }

  get remainingBudget(): number {
    return this.remaining;
  }

  /** Evaluates one compiled expression. Never throws. */
  evaluate(compiled: CompiledExpression): EvalResult {
    if (this.exhausted) return { ok: false, message: OUT_OF_BUDGET_MESSAGE, kind: 'budget', cost: 0 };
    const out = compiled.program.evaluate(this.activation, this.perCallLimit);
    // Variables evaluated lazily while running are charged first, then the expression itself.
    const variableCost = this.activation.variables!.takeCost();
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
