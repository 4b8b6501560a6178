/**
 * Parse → check → plan, and evaluation with a cost limit. This is the engine's own entry point; the
 * Kubernetes layer (src/cel/k8s) builds environments and activations on top of it.
 */
import { ReviewAborted } from '../../guard/index.js';
import type { ReviewGuard } from '../../guard/index.js';
import { activeGuard, enterGuard, restoreGuard } from './bounds.js';
import { check } from './checker.js';
import type { Env } from './env.js';
import { AsyncPending, CelEvalError, CostLimitError, EvaluationDeferred, ProgramInstantiationError, formatIssues, type CelIssue } from './errors.js';
import { endEvaluation, startEvaluation } from './object-keys.js';
import { parse } from './parser.js';
import { AsyncResults, EvalState, type Activation } from './eval-state.js';
import type { Interp } from './planned.js';
import { plan, type PlanOptions } from './planner.js';
import { validateLiterals } from './validators.js';
import type { CelType } from './types.js';
import type { CelValue } from './values.js';

export interface CompileOptions {
  /** Type-check (default true); conformance tests may disable it. */
  check?: boolean;
  /** Compile-time validation of constant duration/timestamp/regex arguments (Kubernetes). */
  validateLiterals?: boolean;
  plan?: PlanOptions;
}

export type CompileOutcome =
  | { ok: true; program: Program; type: CelType | undefined }
  | {
      ok: false;
      issues: CelIssue[];
      message: string;
      /**
       * Set when the expression checked but program creation failed (cel-go's env.Program):
       * `program instantiation failed: <error>`, and the checked type, which Kubernetes' result-type
       * check reads first.
       */
      instantiation?: { message: string; type: CelType | undefined };
    };

export class Program {
  constructor(
    readonly source: string,
    readonly type: CelType | undefined,
    private readonly interp: Interp,
    private readonly slotCount: number,
  ) {}

  /**
   * Evaluates against an activation with a cost limit. Returns the value and the cost; CEL errors
   * come back as `{error}`, cost-limit exhaustion as `{error, costLimit: true}`, and — when `async`
   * is given — a call that returned a Promise as `{pending}` (await it, record the result in `async`,
   * evaluate again). Never throws, except EvaluationDeferred (for the outer evaluation that nests this
   * one) and ReviewAborted when the review guard (`guard`, by default the
   * active one of src/cel/engine/bounds.ts) trips: the deadline passed, the review was cancelled, or a
   * value would pass the size bound.
   */
  evaluate(act: Activation, limit: number, async?: AsyncResults, guard: ReviewGuard | undefined = activeGuard()): EvalOutcome {
    const s = new EvalState(act, limit, this.slotCount, async, guard);
    const outer = activeGuard();
    if (guard !== outer) enterGuard(guard!);
    // Keys of large maps are kept while it runs (object-keys.ts).
    startEvaluation();
    try {
      const value = this.interp(s);
      if (s.cost > limit) return { ok: false, error: new CostLimitError().message, costLimit: true, cost: s.cost };
      return { ok: true, value, cost: s.cost };
    } catch (e) {
      if (e instanceof CostLimitError) return { ok: false, error: e.message, costLimit: true, cost: s.cost };
      if (e instanceof AsyncPending) return { ok: false, error: 'pending asynchronous call', pending: e, cost: s.cost };
      if (e instanceof CelEvalError) return { ok: false, error: e.message, cost: s.cost };
      if (e instanceof ReviewAborted || e instanceof EvaluationDeferred) throw e;
      if (e instanceof RangeError) return { ok: false, error: `evaluation failed: ${e.message}`, cost: s.cost };
      return { ok: false, error: `internal error: ${e instanceof Error ? e.message : String(e)}`, cost: s.cost };
    } finally {
      endEvaluation();
      if (guard !== outer) restoreGuard(outer);
    }
  }
}

export type EvalOutcome =
  | { ok: true; value: CelValue; cost: number }
  | { ok: false; error: string; costLimit?: boolean; pending?: AsyncPending; cost: number };

export { AsyncResults };

export function compile(source: string, env: Env, options: CompileOptions = {}): CompileOutcome {
  if (typeof source !== 'string') {
    const issues = [{ message: 'expression must be a string', offset: -1 }];
    return { ok: false, issues, message: formatIssues('', issues) };
  }
  const parsed = parse(source, { macros: (k) => env.lookupMacro(k) });
  if (!parsed.expr) return { ok: false, issues: parsed.issues, message: formatIssues(source, parsed.issues) };
  let type: CelType | undefined;
  if (options.check !== false) {
    const checked = check(parsed.expr, env);
    const issues = checked.issues;
    // cel-go runs all its validators on a clean check (env.Check), each reporting what it finds.
    if (options.validateLiterals && checked.typeChecked) issues.push(...validateLiterals(parsed.expr, env));
    if (issues.length) return { ok: false, issues, message: formatIssues(source, issues) };
    type = checked.type;
  }
  try {
    const planned = plan(parsed.expr, env, options.plan);
    return { ok: true, program: new Program(source, type, planned.interp, planned.slotCount), type };
  } catch (e) {
    if (e instanceof ProgramInstantiationError) {
      const message = `program instantiation failed: ${e.message}`;
      const issues = [{ message, offset: e.pos }];
      return { ok: false, issues, message: formatIssues(source, issues), instantiation: { message, type } };
    }
    const issues = [{ message: `program planning failed: ${(e as Error).message}`, offset: -1 }];
    return { ok: false, issues, message: formatIssues(source, issues) };
  }
}
