/**
 * Policy variables (spec map.md §7.5): compiled in declaration order, each seeing the earlier ones with
 * their static types; evaluated lazily, once per evaluation, on first access.
 */
import { CelEvalError, EvaluationDeferred } from '../engine/errors.js';
import type { Activation, AsyncResults } from '../engine/eval-state.js';
import { Kind, T, listOf, mapOf, type CelType } from '../engine/types.js';
import { LazyObject, type CelValue } from '../engine/values.js';
import { compileExpression, type CompileScope, type CompiledExpression } from './compile.js';
import type { CelDialect } from './environment.js';
import { VARIABLES_TYPE } from './types.js';
import { VariableScope } from './variable-scope.js';

export interface VariableDefinition {
  readonly name: string;
  readonly expression: string;
}

export interface CompiledVariable {
  readonly name: string;
  readonly expression: string;
  /** Static type seen by later expressions (dyn when the variable failed to compile). */
  readonly type: CelType;
  readonly compiled?: CompiledExpression;
  /** The compile error text, when it failed. */
  readonly error?: string;
}

/** The compiled variables of one policy. */
export class CompiledVariables {
  private readonly byName: Map<string, CompiledVariable>;
  /** Each variable's position in `entries` (LazyVariables keeps its results by it). */
  private readonly positions: Map<string, number>;
  /** Every variable: the scope later expressions are compiled with. */
  private readonly declared: VariableScope;

  private constructor(
    readonly entries: readonly CompiledVariable[],
    readonly params: boolean,
    readonly dialect?: CelDialect,
    declared = VariableScope.EMPTY,
  ) {
    this.byName = new Map(entries.map((e) => [e.name, e]));
    this.positions = new Map(entries.map((e, i) => [e.name, i]));
    this.declared = declared;
  }

  static readonly NONE_WITH_PARAMS = new CompiledVariables([], true);

  /**
   * Compiles the definitions in order; failures are recorded, not thrown. Without the patch types (no
   * `Object`, `JSONPatch`, `jsonpatch.escapeKey`), as kube-apiserver compiles a policy's variables; Kyverno's
   * dialect keeps its own environment, and each variable's exact type (its VariablesProvider).
   */
  static compile(definitions: readonly VariableDefinition[], options: { params: boolean; dialect?: CelDialect }): CompiledVariables {
    const entries: CompiledVariable[] = [];
    let scope = VariableScope.EMPTY;
    const kyverno = options.dialect === 'kyverno';
    for (const def of definitions) {
      const r = compileExpression(def.expression, 'variable', { params: options.params, variables: scope, ...(options.dialect ? { dialect: options.dialect } : { patchTypes: false }) });
      const entry: CompiledVariable = r.ok
        ? { name: def.name, expression: def.expression, type: kyverno ? r.compiled.type : declaredType(r.compiled.type), compiled: r.compiled }
        : { name: def.name, expression: def.expression, type: T.dyn, error: r.message };
      entries.push(entry);
      scope = scope.extend(def.name, entry.type);
    }
    return new CompiledVariables(entries, options.params, options.dialect, scope);
  }

  get(name: string): CompiledVariable | undefined {
    return this.byName.get(name);
  }

  /** The variable's position in `entries`, or undefined when there is no such variable. */
  position(name: string): number | undefined {
    return this.positions.get(name);
  }

  /** The scope later expressions (matchConditions, mutations) are compiled with. */
  scope(): CompileScope {
    return this.dialect ? { params: this.params, variables: this.declared, dialect: this.dialect } : { params: this.params, variables: this.declared };
  }
}

/**
 * The type kube-apiserver declares a variable with in `variables` (admission/plugin/cel/composition.go,
 * convertCelTypeToDeclType): the primitive types keep theirs, a list or map is rebuilt from its parameters'
 * declared types, and every other type (a library type such as kubernetes.Quantity or net.IP, an
 * optional, a struct such as the request, a type value) is dyn. Later expressions are checked against
 * that: `[variables.q, quantity('1')]` mixes dyn and kubernetes.Quantity, `variables.q == 1` fails only
 * when evaluated.
 */
function declaredType(t: CelType): CelType {
  switch (t.kind) {
    case Kind.Bool:
    case Kind.Bytes:
    case Kind.Double:
    case Kind.Duration:
    case Kind.Int:
    case Kind.Null:
    case Kind.String:
    case Kind.Timestamp:
    case Kind.Uint:
      return t;
    case Kind.List:
      return listOf(declaredType(t.params[0]));
    case Kind.Map:
      return mapOf(declaredType(t.params[0]), declaredType(t.params[1]));
    default:
      return T.dyn;
  }
}

/**
 * Variables evaluated inside the evaluation of other variables, at most (a chain deeper than this is
 * evaluated from its far end at the top: see LazyVariables.field). kube-apiserver's Go stack takes a
 * chain of thousands; ours overflowed at about 900 on a main thread.
 */
const MAX_NESTED_VARIABLES = 32;

type VariableResult = { value?: CelValue; error?: CelEvalError };

/**
 * The `variables` value of one evaluation: each variable is evaluated on first access with its own
 * per-call limit; its cost is reported to the evaluation (charged once) and its value or error cached.
 */
export class LazyVariables extends LazyObject {
  readonly typeName = VARIABLES_TYPE;
  /**
   * By the variable's position (see CompiledVariables.position); made on the first variable read: most
   * evaluations (every matchCondition of a MAP) read none. A list, not a map: a policy has few variables.
   */
  private results: (VariableResult | undefined)[] | undefined;
  /** Cost of variables evaluated since the last `takeCost()`. */
  private pendingCost = 0;
  /** Variable evaluations running now, one inside the other. */
  private depth = 0;

  constructor(
    private readonly variables: CompiledVariables,
    private readonly activation: Activation,
    private readonly perCallLimit: number,
    /** Awaited results of asynchronous calls, when the evaluation is asynchronous. */
    private readonly async?: AsyncResults,
  ) {
    super();
  }

  /**
   * lazy.MapValue.Equal: the same map is equal, anything else is MaybeNoSuchOverloadErr (an error for
   * `==`, true for `!=`).
   */
  celEquals(other: unknown): boolean | undefined {
    return other === this ? true : undefined;
  }

  /** The variables' names, in order: what a comprehension over `dyn(variables)` ranges over. */
  names(): readonly string[] {
    return this.variables.entries.map((e) => e.name);
  }

  /**
   * kube-apiserver's lazy.MapValue answers a presence test with Find, which evaluates the variable: a
   * variable that fails makes has(variables.x) and variables.?x fail with its error.
   */
  has(name: string): boolean {
    if (this.variables.get(name) === undefined) return false;
    this.field(name);
    return true;
  }

  field(name: string): CelValue | undefined {
    const at = this.variables.position(name);
    if (at === undefined) return undefined;
    const results = (this.results ??= new Array(this.variables.entries.length));
    let r = results[at];
    if (!r) {
      if (this.depth >= MAX_NESTED_VARIABLES) throw new EvaluationDeferred(at);
      r = this.depth === 0 ? this.evaluateOutermost(at, results) : this.evaluateAt(at, results);
    }
    if (r.error) throw r.error;
    return r.value;
  }

  /**
   * Evaluates a variable read by no other variable being evaluated. A variable read too deep inside
   * others is deferred to here: it is evaluated first, at this depth, then the ones it stopped run
   * again from the top (CEL is pure: they compute what they would have, and the same variables).
   */
  private evaluateOutermost(at: number, results: (VariableResult | undefined)[]): VariableResult {
    const wanted = [at];
    for (;;) {
      const next = wanted[wanted.length - 1];
      try {
        const r = this.evaluateAt(next, results);
        wanted.pop();
        if (wanted.length === 0) return r;
      } catch (e) {
        if (!(e instanceof EvaluationDeferred)) throw e;
        wanted.push(e.position);
      }
    }
  }

  private evaluateAt(at: number, results: (VariableResult | undefined)[]): VariableResult {
    this.depth++;
    try {
      return (results[at] = this.evaluate(this.variables.entries[at]));
    } finally {
      this.depth--;
    }
  }

  takeCost(): number {
    const c = this.pendingCost;
    this.pendingCost = 0;
    return c;
  }

  private evaluate(v: CompiledVariable): VariableResult {
    if (!v.compiled) return { error: new CelEvalError(`composited variable "${v.name}" fails to compile: ${v.error}`) };
    const out = v.compiled.program.evaluate(this.activation, this.perCallLimit, this.async);
    // An asynchronous call is awaited by the caller, which evaluates again; nothing is cached.
    if (!out.ok && out.pending) throw out.pending;
    this.pendingCost += out.cost;
    if (!out.ok) return { error: new CelEvalError(`composited variable "${v.name}" fails to evaluate: ${out.error}`) };
    return { value: out.value };
  }
}
