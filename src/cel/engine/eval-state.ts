/**
 * The state of one evaluation and its cost accounting: the activation, the slots of comprehension
 * variables, the cost charged so far against the limit (and the review guard's clock checkpoints), the
 * awaited results of asynchronous calls, and which errors end an evaluation rather than becoming CEL
 * error values. Every planned closure takes an EvalState; kept apart so plan-time folding and run-time
 * helpers share it without the planner.
 */
import { ReviewAborted, type ReviewGuard } from '../../guard/index.js';
import { AsyncPending, CelEvalError, CostLimitError, EvaluationDeferred } from './errors.js';
import { celEquals } from './runtime.js';
import type { CelValue } from './values.js';

export interface Activation {
  /** The value bound to a variable name, or undefined when unbound. */
  resolve(name: string): unknown;
}

export const LIST_CREATE_COST = 10;
export const MAP_CREATE_COST = 30;
export const STRUCT_CREATE_COST = 40;

const COST_LIMIT = new CostLimitError();

/**
 * Whether an argument is the one an awaited call had: CEL equality, or the library value's own
 * celSameArgument where CEL equality refuses to compare (Kubernetes' authorization values).
 */
function sameArgument(a: unknown, b: unknown): boolean {
  const own = (a as { celSameArgument?: unknown } | null | undefined)?.celSameArgument;
  return typeof own === 'function' ? own.call(a, b) === true : celEquals(a, b);
}

/** Results of asynchronous calls already awaited in this evaluation, matched by overload and arguments. */
export class AsyncResults {
  /** Made on the first result: most evaluations await nothing. */
  private entries: { overloadId: string; args: readonly unknown[]; value: CelValue }[] | undefined;

  find(overloadId: string, args: readonly unknown[]): { value: CelValue } | undefined {
    if (this.entries === undefined) return undefined;
    for (const e of this.entries) {
      if (e.overloadId === overloadId && e.args.length === args.length && e.args.every((a, i) => sameArgument(a, args[i]))) {
        return { value: e.value };
      }
    }
    return undefined;
  }

  add(overloadId: string, args: readonly unknown[], value: CelValue): void {
    (this.entries ??= []).push({ overloadId, args, value });
  }

  get size(): number {
    return this.entries?.length ?? 0;
  }
}

/**
 * Cost units between two looks at the review guard's clock (a few hundred microseconds of evaluation):
 * the deadline is noticed on the cost path the planner already has, at no charge on the normal path.
 */
const GUARD_COST_STRIDE = 20_000;

export class EvalState {
  cost = 0;
  /**
   * When `cost` passes this, `overLimit` runs: the cost limit itself, or an earlier checkpoint at which
   * the review guard reads its clock (then the next checkpoint is set).
   */
  limit: number;
  readonly slots: unknown[];
  constructor(
    readonly act: Activation,
    /** The per-call cost limit. */
    readonly costLimit: number,
    slotCount: number,
    /** Present when the caller can await asynchronous functions. */
    readonly async?: AsyncResults,
    /** The review's deadline and cancellation, checked every GUARD_COST_STRIDE cost units. */
    readonly guard?: ReviewGuard,
  ) {
    this.slots = new Array(slotCount);
    this.limit = guard ? Math.min(costLimit, GUARD_COST_STRIDE) : costLimit;
  }
}

/** `s.cost` passed `s.limit`: the cost limit (throws CostLimitError) or a guard checkpoint. */
export function overLimit(s: EvalState): void {
  if (s.cost > s.costLimit || !s.guard) throw COST_LIMIT;
  s.guard.check();
  s.limit = Math.min(s.costLimit, s.cost + GUARD_COST_STRIDE);
}

export function charge(s: EvalState, n: number): void {
  s.cost += n;
  if (s.cost > s.limit) overLimit(s);
}

/** Errors that end the evaluation instead of becoming CEL error values. */
export function isCostError(e: unknown): boolean {
  return e instanceof CostLimitError || e instanceof AsyncPending || e instanceof ReviewAborted || e instanceof EvaluationDeferred;
}

export function toError(e: unknown, fn: string): CelEvalError {
  if (e instanceof CelEvalError) return e;
  if (isCostError(e)) throw e;
  const msg = e instanceof Error ? e.message : String(e);
  return new CelEvalError(`${fn}: ${msg}`);
}
