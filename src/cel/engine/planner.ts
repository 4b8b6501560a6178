/**
 * Turns a (checked or unchecked) AST into a tree of closures. Cost is counted while evaluating, in
 * cel-go's units (`interpreter/runtimecost.go` with Kubernetes' options: OptOptimize constant folding of
 * aggregate literals, has() free): 1 per identifier and per select/index qualifier (+1 for a qualifier
 * applied to a computed value), 1 per call unless the overload has a cost function, 10/30/40 to build a
 * list/map/object. A conditional is an attribute whose branches are resolved without their root's charge
 * (`Planned.resolve`); an absent `.?f`/`[?k]` is free; a call whose argument failed is charged before the
 * error goes on (see src/cel/README.md). Exceeding the limit throws CostLimitError at once, so a runaway
 * expression stops.
 */
import { Op, qualifiedName, type CallExpr, type ComprehensionExpr, type Expr, type SelectExpr } from './ast.js';
import type { Env } from './env.js';
import { hasField, indexValue, invalidQualifier, isQualifierKey, optionalSelect, selectField, zeroValue } from './access.js';
import { checkBuiltSize, checkResultSize } from './bounds.js';
import { callStandard, failedArgs, failedCall } from './calls.js';
import { AsyncPending, CelEvalError, ProgramInstantiationError, noSuchOverload } from './errors.js';
import { LIST_CREATE_COST, MAP_CREATE_COST, STRUCT_CREATE_COST, charge, isCostError, overLimit, toError, type EvalState } from './eval-state.js';
import { TYPE_CONVERSIONS, checkConstantArgument, constantConversion, foldCall } from './folding.js';
import { goValueText } from './go-text.js';
import { dispatch, type Overload } from './functions.js';
import { callFailure } from './overload-errors.js';
import type { Interp, Planned } from './planned.js';
import { buildMap, celEquals, equalsOrError, formatKey, mapGet, mapHas, mapKeys, markUintKey, storedKey, typeNameOf } from './runtime.js';
import { equalityCost } from './stdlib.js';
import { CelOptional, CelUint, LazyObject, StructValue, isGoZeroScalar, isMapValue, type CelMapValue, type CelValue } from './values.js';

/** Extra runtime information the planner needs from its host. */
export interface PlanOptions {
  /** Library cost callback for an overload (Kubernetes cost estimator); undefined → default. */
  libraryCost?: (o: Overload, args: readonly CelValue[], result: CelValue) => number | undefined;
  /** What a library call will cost, known from its arguments alone (CelLibrary.callCostFromArgs); undefined → not known. */
  libraryCostFromArgs?: (o: Overload, args: readonly CelValue[]) => number | undefined;
  /**
   * The cost of `a == b` when the environment's cost estimator prices it by the left operand
   * (Kubernetes' library values: 1), else undefined for cel-go's traversal of the smaller operand.
   * `!=` is never asked: no estimator prices it.
   */
  equalsCost?: (left: unknown) => number | undefined;
  /**
   * A presence test (`has(x.f)`, `x.?f`) on a value without fields is an error (cel-go's
   * EnableErrorOnBadPresenceTest, which the cel-spec conformance tests assume). Kubernetes does not
   * enable it: such a test is false / none there. Default false.
   */
  errorOnBadPresenceTest?: boolean;
  /**
   * A map literal with a repeated key is an error, as cel-spec says. cel-go (so Kubernetes) keeps the
   * last entry of a key instead, and an optional entry without a value removes it. Default false.
   */
  errorOnRepeatedMapKey?: boolean;
  /**
   * A map literal with a double or null key is an error ('unsupported key type'), as cel-spec says.
   * cel-go (so Kubernetes) stores it in its Go map: `{1.5: 'a'}[1.5]` is 'a'. Default false.
   */
  errorOnDoubleOrNullMapKey?: boolean;
  /**
   * An index whose constant key cel-go cannot make a qualifier of (`m[null]`, `m[dyn(b'')]`) fails
   * when evaluated, as in cel-go without OptOptimize (the cel-spec conformance runs). Kubernetes plans
   * with OptOptimize, where the key is a constant when the index is planned: program creation fails.
   * Default false.
   */
  invalidConstantKeyAtEvaluation?: boolean;
}

export interface PlannedProgram {
  readonly interp: Interp;
  readonly slotCount: number;
}

export function plan(root: Expr, env: Env, options: PlanOptions = {}): PlannedProgram {
  const p = new Planner(env, options);
  const interp = p.plan(root);
  return { interp, slotCount: p.slotCount };
}

class Planner {
  slotCount = 0;
  private readonly scopes: Map<string, number>[] = [];

  constructor(
    private readonly env: Env,
    private readonly options: PlanOptions,
  ) {}

  plan(e: Expr): Interp {
    return this.node(e).fn;
  }

  private slotOf(name: string): number | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i].get(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  private node(e: Expr): Planned {
    switch (e.kind) {
      case 'literal': {
        const v = e.value;
        return { fn: () => v, attribute: false, constant: { value: v } };
      }
      case 'ident':
        return this.ident(e.name, e.resolved?.local !== undefined || (!e.resolved && this.slotOf(e.name) !== undefined), e.resolved?.decl?.value);
      case 'select':
        return this.select(e);
      case 'call':
        return this.call(e);
      case 'list':
        return this.list(e.elements.map((x) => this.node(x)), e.optionalIndices);
      case 'map':
        return this.map(e);
      case 'struct':
        return this.struct(e);
      case 'comprehension':
        return this.comprehension(e);
    }
  }

  // ---- identifiers
  private ident(name: string, local: boolean, constValue?: CelValue): Planned {
    if (local) {
      const slot = this.slotOf(name)!;
      return {
        attribute: true,
        observe: 1,
        fn: (s) => {
          s.cost++;
          const v = s.slots[slot];
          if (v instanceof CelEvalError) throw v;
          return v;
        },
        resolve: (s) => {
          const v = s.slots[slot];
          if (v instanceof CelEvalError) throw v;
          return v;
        },
      };
    }
    if (constValue !== undefined) return { fn: () => constValue, attribute: false, constant: { value: constValue } };
    const candidates = this.env.candidateNames(name);
    const display = name.replace(/^\./, '');
    const container = this.env.container;
    if (candidates.length === 1) {
      const n = candidates[0];
      const missing = (): CelValue => {
        const decl = this.env.lookupIdentExact(n);
        if (decl?.value !== undefined) return decl.value;
        throw new CelEvalError(`undeclared reference to '${display}' (in container '${container}')`);
      };
      return {
        attribute: true,
        observe: 1,
        fn: (s) => {
          s.cost++;
          const v = s.act.resolve(n);
          return v === undefined ? missing() : v;
        },
        resolve: (s) => {
          const v = s.act.resolve(n);
          return v === undefined ? missing() : v;
        },
      };
    }
    const resolve: Interp = (s) => {
      for (const n of candidates) {
        const v = s.act.resolve(n);
        if (v !== undefined) return v;
        const decl = this.env.lookupIdentExact(n);
        if (decl?.value !== undefined) return decl.value;
      }
      throw new CelEvalError(`undeclared reference to '${display}' (in container '${container}')`);
    };
    return rootAttribute(resolve);
  }

  // ---- field selection
  private select(e: SelectExpr): Planned {
    if (e.resolved?.decl) {
      const decl = e.resolved.decl;
      if (decl.value !== undefined) return this.ident(decl.name, false, decl.value);
      return this.ident(decl.name, false);
    }
    // Unchecked expressions: a.b.c may name a variable "a.b.c" or "a.b" (longest prefix wins).
    if (!e.type && !e.testOnly) {
      const maybe = this.maybeQualified(e);
      if (maybe) return maybe;
    }
    const operand = this.node(e.operand);
    const field = e.field;
    const op = operand.fn;
    const extra = operand.attribute ? 0 : 1;
    const struct = e.operandStruct;
    if (e.testOnly) {
      // has() tests the operand's value directly (no relative attribute) and is free in Kubernetes.
      const strict = this.options.errorOnBadPresenceTest === true;
      return { attribute: false, fn: (s) => hasField(op(s), field, struct, strict) };
    }
    const strict = this.options.errorOnBadPresenceTest === true;
    // The qualifier costs 1 once it is applied (also when it fails); an operand that is not an attribute
    // makes a relative attribute, whose observation (+1) cel-go charges even when the operand fails.
    if (operand.attribute) {
      const inner = operand.resolve!;
      return {
        attribute: true,
        observe: operand.observe,
        fn: (s) => {
          const v = op(s);
          s.cost++;
          return selectField(v, field, struct, strict);
        },
        resolve: (s) => {
          const v = inner(s);
          s.cost++;
          return selectField(v, field, struct, strict);
        },
      };
    }
    return {
      attribute: true,
      observe: extra,
      fn: (s) => {
        let v: CelValue;
        try {
          v = op(s);
        } catch (err) {
          if (!isCostError(err)) s.cost += extra;
          throw err;
        }
        s.cost += 1 + extra;
        return selectField(v, field, struct, strict);
      },
      resolve: (s) => {
        const v = op(s);
        s.cost++;
        return selectField(v, field, struct, strict);
      },
    };
  }

  private maybeQualified(e: SelectExpr): Planned | undefined {
    const q = qualifiedName(e);
    if (q === undefined) return undefined;
    let root: Expr = e;
    while (root.kind === 'select') root = root.operand;
    if (root.kind === 'ident' && this.slotOf(root.name) !== undefined) return undefined;
    const parts = q.split('.');
    const prefixes: { names: string[]; rest: string[] }[] = [];
    for (let i = parts.length; i >= 1; i--) {
      prefixes.push({ names: this.env.candidateNames(parts.slice(0, i).join('.')), rest: parts.slice(i) });
    }
    const resolve: Interp = (s) => {
        for (const { names, rest } of prefixes) {
          for (const n of names) {
            let v = s.act.resolve(n) as CelValue | undefined;
            if (v === undefined) continue;
            for (const f of rest) {
              s.cost++;
              v = selectField(v, f, undefined);
            }
            return v;
          }
        }
        throw new CelEvalError(`undeclared reference to '${q}' (in container '${this.env.container}')`);
    };
    return rootAttribute(resolve);
  }

  // ---- calls
  private call(e: CallExpr): Planned {
    switch (e.fn) {
      case Op.and:
        return this.logical(e, false);
      case Op.or:
        return this.logical(e, true);
      case Op.conditional:
        return this.conditional(e);
      case Op.notStrictlyFalse: {
        const arg = this.node(e.args[0]).fn;
        return {
          attribute: false,
          fn: (s) => {
            let v: unknown;
            try {
              v = arg(s);
            } catch (err) {
              if (isCostError(err)) throw err;
              v = true;
            }
            charge(s, 1);
            return typeof v === 'boolean' ? v : true;
          },
        };
      }
      case Op.equals:
      case Op.notEquals: {
        const l = this.node(e.args[0]).fn;
        const r = this.node(e.args[1]).fn;
        const neg = e.fn === Op.notEquals;
        const ownCost = neg ? undefined : this.options.equalsCost;
        return {
          attribute: false,
          fn: (s) => {
            // cel-go's evalEq evaluates both sides, and the call is charged when one is an error.
            const a = sideOf(l, s);
            const b = sideOf(r, s);
            charge(s, ownCost?.(a) ?? equalityCost(a, b));
            if (a instanceof FailedSide || b instanceof FailedSide) throw firstFailure(a, b);
            const eq = equalsOrError(a, b);
            // cel-go's evalEq returns the error; evalNe answers `Equal != True`.
            if (eq === undefined) {
              if (neg) return true;
              throw noSuchOverload();
            }
            return eq !== neg;
          },
        };
      }
      case Op.in:
        return this.inOp(e);
      case Op.index:
      case Op.optIndex:
        return this.index(e, e.fn === Op.optIndex);
      case Op.optSelect:
        return this.optSelect(e);
    }
    if ((e.fn === 'or' || e.fn === 'orValue') && e.target && e.args.length === 1) {
      const isOptionalCall = !e.overloads || e.overloads.some((o) => o.id === 'optional_or_optional' || o.id === 'optional_orValue_value');
      if (isOptionalCall) return this.optionalOr(e, e.fn === 'orValue');
    }
    if (e.target === null && e.args.length === 1 && TYPE_CONVERSIONS.has(e.fn)) {
      const arg = this.node(e.args[0]);
      const call = this.functionCall(e, [arg]);
      return arg.constant ? constantConversion(e, call) : call;
    }
    return this.functionCall(e);
  }

  private logical(e: CallExpr, isOr: boolean): Planned {
    const l = this.node(e.args[0]).fn;
    const r = this.node(e.args[1]).fn;
    const short = isOr;
    return {
      attribute: false,
      fn: (s) => {
        let lv: unknown;
        let lerr: unknown;
        try {
          lv = l(s);
        } catch (err) {
          if (isCostError(err)) throw err;
          lerr = err;
        }
        if (lv === short) return short;
        let rv: unknown;
        let rerr: unknown;
        try {
          rv = r(s);
        } catch (err) {
          if (isCostError(err)) throw err;
          rerr = err;
        }
        if (rv === short) return short;
        if (typeof lv === 'boolean' && typeof rv === 'boolean') return !short;
        if (lerr) throw lerr;
        if (typeof lv !== 'boolean') throw noSuchOverload();
        if (rerr) throw rerr;
        throw noSuchOverload();
      },
    };
  }

  /**
   * cel-go plans `c ? t : f` as a conditional attribute (planCallConditional): a branch that is an
   * attribute is resolved through its Attribute, without the observation of its root (no +1 for the
   * identifier or relative operand; its qualifiers are charged), any other branch as a relative attribute
   * (its own cost). The conditional itself is always an attribute and costs nothing to observe, so a
   * select or index on it is a qualifier of the chosen branch.
   */
  private conditional(e: CallExpr): Planned {
    const c = this.node(e.args[0]).fn;
    const tp = this.node(e.args[1]);
    const fp = this.node(e.args[2]);
    const t = tp.attribute ? tp.resolve! : tp.fn;
    const f = fp.attribute ? fp.resolve! : fp.fn;
    const fn: Interp = (s) => {
      const v = c(s);
      if (v === true) return t(s);
      if (v === false) return f(s);
      throw noSuchOverload();
    };
    return { attribute: true, observe: 0, fn, resolve: fn };
  }

  private inOp(e: CallExpr): Planned {
    const l = this.node(e.args[0]).fn;
    const right = this.node(e.args[1]);
    const r = right.fn;
    // OptOptimize (cel-go interpreter/decorators.go maybeOptimizeSetMembership): membership in an
    // empty constant list is the constant false, its left side never evaluated; in a constant list of
    // bools, numbers and strings only, a set lookup with no call cost. Other constant lists (bytes,
    // lists, maps, null, timestamps...) stay a call charged the list's size.
    const rightValue = right.constant?.value;
    if (Array.isArray(rightValue) && rightValue.length === 0) return { fn: () => false, attribute: false, constant: { value: false } };
    const constList = Array.isArray(rightValue) && rightValue.every(isSetElement);
    return {
      attribute: false,
      fn: (s) => {
        const a = sideOf(l, s);
        const b = sideOf(r, s);
        // A failed side: the call is charged all the same (the list's size, or 1), unless the
        // membership test was optimized away.
        if (a instanceof FailedSide || b instanceof FailedSide) failedArgs(s, firstFailure(a, b), () => (constList ? 0 : Array.isArray(b) ? b.length : 1));
        if (Array.isArray(b)) {
          if (!constList) charge(s, b.length);
          for (let i = 0; i < b.length; i++) if (celEquals(a, b[i])) return true;
          return false;
        }
        if (isMapValue(b)) {
          charge(s, 1);
          return mapHas(b, a as CelValue) || (typeof a === 'number' && Number.isInteger(a) && mapHas(b, BigInt(a)));
        }
        // Kubernetes' lazy map has a Contains method, but its type lacks the Container trait, which
        // cel-go's inAggregate asks for: 'no such overload' (lazy.go NewMapValue, stdlib/standard.go).
        if (b instanceof LazyObject) failedArgs(s, noSuchOverload(), () => 1);
        failedArgs(s, callFailure(Op.in, [a, b]), () => 1);
      },
    };
  }

  /**
   * `a[k]`, `a[?k]`: a qualifier of the operand's attribute, or of a relative attribute over a computed
   * operand (whose observation, +1, cel-go charges even when the operand or the key fails). The key is a
   * qualifier costing 1: a constant, a computed value, or an attribute resolved without its own
   * observation (cel-go's attrQualifier). `k` is charged once applied, also when it fails; `[?k]` only
   * when the key is present (evalWatch*Qual.QualifyIfPresent observes `if present`).
   */
  private index(e: CallExpr, optional: boolean): Planned {
    const operand = this.node(e.args[0]);
    const keyNode = this.node(e.args[1]);
    // cel-go makes a constant key's qualifier when it plans the index: one it cannot make fails program creation.
    if (keyNode.constant && !isQualifierKey(keyNode.constant.value) && !this.options.invalidConstantKeyAtEvaluation) {
      throw new ProgramInstantiationError(invalidQualifier(keyNode.constant.value), e.args[1].pos);
    }
    const key = keyNode.attribute ? keyNode.resolve! : keyNode.fn;
    const make = (op: Interp, root: number): Interp => {
      if (optional) {
        return (s) => {
          let container: CelValue;
          let k: CelValue;
          try {
            container = op(s);
            k = key(s);
          } catch (err) {
            if (!isCostError(err)) s.cost += root;
            throw err;
          }
          s.cost += root;
          const r = indexValue(container, k, true);
          if (r instanceof CelOptional && r.hasValue()) s.cost++;
          return r;
        };
      }
      if (root === 0) {
        return (s) => {
          const container = op(s);
          let k: CelValue;
          try {
            k = key(s);
          } catch (err) {
            if (!isCostError(err)) s.cost++;
            throw err;
          }
          s.cost++;
          return indexValue(container, k, false);
        };
      }
      return (s) => {
        let container: CelValue;
        try {
          container = op(s);
        } catch (err) {
          if (!isCostError(err)) s.cost += root;
          throw err;
        }
        let k: CelValue;
        try {
          k = key(s);
        } catch (err) {
          if (!isCostError(err)) s.cost += root + 1;
          throw err;
        }
        s.cost += root + 1;
        return indexValue(container, k, false);
      };
    };
    if (operand.attribute) return { attribute: true, observe: operand.observe, fn: make(operand.fn, 0), resolve: make(operand.resolve!, 0) };
    return { attribute: true, observe: 1, fn: make(operand.fn, 1), resolve: make(operand.fn, 0) };
  }

  /** `a.?f`: as `a[?'f']` (the field qualifier is charged only when the field is present). */
  private optSelect(e: CallExpr): Planned {
    const operand = this.node(e.args[0]);
    const field = (e.args[1] as { value: string }).value;
    const struct = e.operandStruct;
    const strict = this.options.errorOnBadPresenceTest === true;
    const make = (op: Interp, root: number): Interp => (s) => {
      let v: CelValue;
      try {
        v = op(s);
      } catch (err) {
        if (root !== 0 && !isCostError(err)) s.cost += root;
        throw err;
      }
      s.cost += root;
      const r = optionalSelect(v, field, struct, strict);
      if (r instanceof CelOptional && r.hasValue()) s.cost++;
      return r;
    };
    if (operand.attribute) return { attribute: true, observe: operand.observe, fn: make(operand.fn, 0), resolve: make(operand.resolve!, 0) };
    return { attribute: true, observe: 1, fn: make(operand.fn, 1), resolve: make(operand.fn, 0) };
  }

  /**
   * cel-go's evalOptionalOr / evalOptionalOrValue (cel/library.go decorateOptionalOr): the right side is
   * evaluated only when the left is none, and then is the result unchecked; a left side that is no
   * optional (a dyn value) is 'no such overload' without evaluating the right (cel-go#1276).
   */
  private optionalOr(e: CallExpr, orValue: boolean): Planned {
    const l = this.node(e.target!).fn;
    const r = this.node(e.args[0]).fn;
    return {
      attribute: false,
      fn: (s) => {
        const v = l(s);
        if (!(v instanceof CelOptional)) throw noSuchOverload();
        if (v.hasValue()) return orValue ? v.value() : v;
        return r(s);
      },
    };
  }

  /** `planned`: the plans of the call's arguments when the caller has made them already. */
  private functionCall(e: CallExpr, planned?: Planned[]): Planned {
    let fnName = e.fn;
    let target = e.target;
    let candidates: readonly Overload[] | undefined = e.overloads;
    if (!candidates) {
      // Unchecked: resolve the function now, trying a namespaced name first (optional.of, ...).
      if (target) {
        const q = qualifiedName(target);
        let rootLocal = false;
        let r: Expr = target;
        while (r.kind === 'select') r = r.operand;
        if (r.kind === 'ident') rootLocal = this.slotOf(r.name) !== undefined;
        const ns = q !== undefined && !rootLocal ? this.env.lookupFunction(`${q}.${e.fn}`) : undefined;
        if (ns) {
          fnName = ns.name;
          target = null;
        }
      }
      const decl = this.env.lookupFunction(fnName);
      candidates = decl ? decl.overloads.filter((o) => o.member === (target !== null) && o.params.length === e.args.length + (target ? 1 : 0)) : [];
    }
    const argExprs = target ? [target, ...e.args] : e.args;
    const argPlans = planned ?? argExprs.map((a) => this.node(a));
    checkConstantArgument(this.env.lookupPlanCheck(fnName), argExprs, argPlans);
    const argNodes = argPlans.map((a) => a.fn);
    const overloads = candidates;
    const libraryCost = this.options.libraryCost;
    const libraryCostFromArgs = this.options.libraryCostFromArgs;
    const name = fnName;
    const single = overloads.length === 1 && overloads[0].impl ? overloads[0] : undefined;
    const n = argNodes.length;
    // A standard overload (no library: no awaited results, no library cost, no promise) is called without
    // an argument array (see callStandard).
    const standard = single !== undefined && single.library === undefined;

    /** A call's cost: the library's cost function for a library overload, else the overload's own (1 when neither says). */
    const callCost = (o: Overload, args: CelValue[], result: CelValue | null): number | undefined => {
      let cost: number | undefined;
      if (libraryCost && o.library !== undefined) cost = libraryCost(o, args, result);
      if (cost === undefined && o.cost) cost = o.cost(args, result);
      return cost;
    };

    const invoke = (s: EvalState, o: Overload, args: CelValue[]): CelValue => {
      if (libraryCostFromArgs && o.library !== undefined) {
        // A call that would pass the cost limit whatever it returns is charged without being made: the
        // evaluation stops at the limit as it would after it, without its work.
        const known = libraryCostFromArgs(o, args);
        if (known !== undefined && s.cost + known > s.costLimit) charge(s, known);
      }
      let result: CelValue;
      const memo = s.async && o.library !== undefined ? s.async.find(o.id, args) : undefined;
      if (memo) result = memo.value;
      else {
        try {
          // Direct calls for the usual one or two arguments: a spread call costs more.
          const impl = o.impl!;
          result = args.length === 1 ? impl(args[0]) : args.length === 2 ? impl(args[0], args[1]) : impl(...args);
        } catch (err) {
          failedCall(s, err, name, () => callCost(o, args, null));
        }
      }
      if (o.library !== undefined) {
        if (result !== null && typeof (result as { then?: unknown }).then === 'function') {
          if (!s.async) throw new CelEvalError(`${name}: the function is asynchronous; evaluate the expression asynchronously`);
          throw new AsyncPending(result as PromiseLike<unknown>, o.id, args);
        }
        if (result === undefined) throw new CelEvalError(`${name}: function returned no value`);
      }
      charge(s, callCost(o, args, result) ?? 1);
      // A safety net behind the functions that check before building (concatenation, replace, join...).
      checkResultSize(result, name);
      // A library call may cost next to nothing and still walk its arguments or build a large result
      // (max() of short strings costs their traversal, 0 for each under 10 bytes; "%s".format([list])
      // 15): the guard counts that work, so a loop of such calls meets the deadline within a few calls.
      if (s.guard && o.library !== undefined) s.guard.tickBy(callWork(args, result));
      return result;
    };

    /**
     * The cost of a call that did not run (a failed argument, passed as the error value, or no overload
     * for the arguments): the overload's when the checker chose one (cel-go's OverloadID), else 1.
     */
    const failedCost = (args: CelValue[]): number | undefined => (overloads.length === 1 ? callCost(overloads[0], args, null) : undefined);

    if (single && n === 1) {
      const a0 = argNodes[0];
      const guard = single.guards[0];
      return foldCall(single, argPlans, {
        attribute: false,
        fn: (s) => {
          let v: CelValue;
          try {
            v = a0(s);
          } catch (err) {
            failedArgs(s, err, () => failedCost([err as CelValue]));
          }
          if (!guard(v)) failedArgs(s, callFailure(name, [v]), () => failedCost([v]));
          return standard ? callStandard(s, single, name, 1, v) : invoke(s, single, [v]);
        },
      });
    }
    if (single && n === 2) {
      const a0 = argNodes[0];
      const a1 = argNodes[1];
      const g0 = single.guards[0];
      const g1 = single.guards[1];
      return foldCall(single, argPlans, {
        attribute: false,
        fn: (s) => {
          // cel-go's evalBinary evaluates both arguments before it looks for an error.
          const v0 = sideOf(a0, s);
          const v1 = sideOf(a1, s);
          if (v0 instanceof FailedSide || v1 instanceof FailedSide) failedArgs(s, firstFailure(v0, v1), () => failedCost([asValue(v0), asValue(v1)]));
          if (!g0(v0) || !g1(v1)) failedArgs(s, callFailure(name, [v0, v1]), () => failedCost([v0, v1]));
          return standard ? callStandard(s, single, name, 2, v0, v1) : invoke(s, single, [v0, v1]);
        },
      });
    }
    return {
      attribute: false,
      fn: (s) => {
        const args = new Array<CelValue>(n);
        let failed = false;
        let error: unknown;
        for (let i = 0; i < n; i++) {
          try {
            args[i] = argNodes[i](s);
          } catch (err) {
            if (isCostError(err)) throw err;
            // cel-go's evalVarArgs (three or more arguments) stops at the first failed argument, and the
            // call is observed only when every argument was (the failed one was the last).
            if (n > 2 && i < n - 1) throw err;
            if (!failed) error = err;
            failed = true;
            args[i] = err as CelValue;
          }
        }
        if (failed) failedArgs(s, error, () => failedCost(args));
        const o = dispatch(overloads, args);
        if (!o || !o.impl) {
          if (overloads.length === 0) throw new CelEvalError(`no such overload: ${name}`);
          failedArgs(s, callFailure(name, args), () => failedCost(args));
        }
        return invoke(s, o, args);
      },
    };
  }

  // ---- aggregates
  private list(elems: Planned[], optionalIndices: number[]): Planned {
    if (optionalIndices.length === 0 && elems.every((x) => x.constant)) {
      const value = elems.map((x) => x.constant!.value);
      return { fn: () => value, attribute: false, constant: { value } };
    }
    const fns = elems.map((x) => x.fn);
    const opt = new Set(optionalIndices);
    return {
      attribute: false,
      fn: (s) => {
        const out: CelValue[] = [];
        for (let i = 0; i < fns.length; i++) {
          const v = fns[i](s);
          if (opt.has(i)) {
            if (!(v instanceof CelOptional)) throw new CelEvalError(`cannot initialize optional list element from non-optional value ${goValueText(v)}`);
            if (v.hasValue()) out.push(v.value());
          } else out.push(v);
        }
        charge(s, LIST_CREATE_COST);
        return out;
      },
    };
  }

  private map(e: Extract<Expr, { kind: 'map' }>): Planned {
    const keys = e.entries.map((x) => this.node(x.key));
    const values = e.entries.map((x) => this.node(x.value));
    const optional = e.entries.map((x) => x.optional);
    const repeated = this.options.errorOnRepeatedMapKey === true ? 'error' : 'replace';
    const doubleAndNullKeys = this.options.errorOnDoubleOrNullMapKey !== true;
    if (!optional.some(Boolean) && keys.every((k) => k.constant) && values.every((v) => v.constant)) {
      try {
        const value = buildMap(keys.map((k) => k.constant!.value), values.map((v) => v.constant!.value), repeated, doubleAndNullKeys);
        return { fn: () => value, attribute: false, constant: { value } };
      } catch {
        // fall through: the error is raised at evaluation time
      }
    }
    return {
      attribute: false,
      fn: (s) => {
        const ks: CelValue[] = [];
        const vs: (CelValue | undefined)[] = [];
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i].fn(s);
          const v = values[i].fn(s);
          if (optional[i]) {
            if (!(v instanceof CelOptional)) throw new CelEvalError(`cannot initialize optional entry '${goValueText(k)}' from non-optional value ${goValueText(v)}`);
            if (!v.hasValue()) {
              // cel-go deletes the key written before; cel-spec leaves the map as it is.
              if (repeated === 'replace') {
                ks.push(k);
                vs.push(undefined);
              }
              continue;
            }
            ks.push(k);
            vs.push(v.value());
          } else {
            ks.push(k);
            vs.push(v);
          }
        }
        const m = buildMap(ks, vs, repeated, doubleAndNullKeys);
        charge(s, MAP_CREATE_COST);
        return m;
      },
    };
  }

  private struct(e: Extract<Expr, { kind: 'struct' }>): Planned {
    const typeName = e.decl?.name ?? e.typeName.replace(/^\./, '');
    const fields = e.fields.map((f) => ({ name: f.name, fn: this.node(f.value).fn, optional: f.optional }));
    const decl = e.decl;
    // A Go native struct keeps only its non-zero fields (StructValue).
    const zeroOf = decl?.native
      ? (f: string) => {
          const t = decl.fieldType(f);
          return t ? zeroValue(t) : undefined;
        }
      : undefined;
    return {
      attribute: false,
      fn: (s) => {
        const m = new Map<string, CelValue>();
        for (const f of fields) {
          const v = f.fn(s);
          if (f.optional) {
            // cel-go's evalObj words a field as a map entry (interpreter/interpretable.go invalidOptionalEntryInit).
            if (!(v instanceof CelOptional)) throw new CelEvalError(`cannot initialize optional entry '${f.name}' from non-optional value ${goValueText(v)}`);
            if (v.hasValue()) m.set(f.name, v.value());
          } else m.set(f.name, v);
        }
        if (zeroOf) for (const [name, v] of m) if (isGoZeroScalar(v)) m.delete(name);
        charge(s, STRUCT_CREATE_COST);
        return new StructValue(typeName, m, zeroOf);
      },
    };
  }

  // ---- comprehensions
  private comprehension(e: ComprehensionExpr): Planned {
    const range = this.node(e.iterRange).fn;
    const init = this.node(e.accuInit).fn;
    const accuSlot = this.slotCount++;
    this.scopes.push(new Map([[e.accuVar, accuSlot]]));
    const v1 = this.slotCount++;
    const v2 = e.iterVar2 ? this.slotCount++ : -1;
    const loopScope = new Map([[e.iterVar, v1]]);
    if (e.iterVar2) loopScope.set(e.iterVar2, v2);
    this.scopes.push(loopScope);
    const cond = this.node(e.loopCondition);
    // Macros that build a list or map (map, filter, transformList, transformMap...) append to a
    // private accumulator in place instead of copying it at every step (O(n) instead of O(n²)).
    const builder = this.accumulation(e, accuSlot);
    const step = builder ? builder.step : this.node(e.loopStep).fn;
    this.scopes.pop();
    const result = this.node(e.result).fn;
    this.scopes.pop();
    const condFn = cond.fn;
    const condAlwaysTrue = cond.constant?.value === true;
    const two = e.iterVar2 !== null;
    const fresh = builder?.fresh;

    return {
      attribute: false,
      fn: (s) => {
        const r = range(s);
        const slots = s.slots;
        try {
          slots[accuSlot] = fresh ? fresh() : init(s);
        } catch (err) {
          if (isCostError(err)) throw err;
          slots[accuSlot] = toError(err, 'comprehension');
        }
        let keys: readonly CelValue[];
        let values: ((i: number) => CelValue) | undefined;
        if (Array.isArray(r)) {
          keys = r;
          if (two) values = (i) => r[i];
        } else if (isMapValue(r)) {
          keys = mapKeys(r as CelMapValue);
          if (two) values = (i) => mapGet(r as CelMapValue, keys[i]) as CelValue;
        } else if (r instanceof LazyObject) {
          // Kubernetes' lazy map (lazy.go) is Iterable over its names and a Mapper for the two-variable
          // forms; a value that fails is an error value, raised only where the step reads it.
          keys = r.names();
          if (two) values = (i) => lazyFieldOrError(r, keys[i] as string);
        } else {
          throw new CelEvalError(`expression of type '${typeNameOf(r)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        }
        const guard = s.guard;
        for (let i = 0; i < keys.length; i++) {
          // kube-apiserver interrupts a comprehension every 100 iterations (cel.InterruptCheckFrequency,
          // apiserver admission/plugin/cel/compile.go): a step may cost nothing (`filter(x, false)` reads
          // @result for free), so the cost path alone may never look at the deadline.
          guard?.tick();
          if (two) {
            slots[v1] = Array.isArray(r) ? BigInt(i) : keys[i];
            slots[v2] = values!(i);
          } else {
            slots[v1] = keys[i];
          }
          if (!condAlwaysTrue) {
            let c: unknown;
            try {
              c = condFn(s);
            } catch (err) {
              if (isCostError(err)) throw err;
              c = err;
            }
            if (c !== true) break;
          }
          try {
            slots[accuSlot] = step(s);
          } catch (err) {
            if (isCostError(err)) throw err;
            slots[accuSlot] = toError(err, 'comprehension');
            // An accumulated list/map stays an error from here on; stop building it.
            if (fresh) break;
          }
          if (s.cost > s.limit) overLimit(s);
        }
        return result(s);
      },
    };
  }

  /**
   * Recognises the steps macros generate for building values — `@result + [e]`,
   * `cel.@mapInsert(@result, k, v)`, `cel.@mapInsert(@result, {k: v})`, each possibly under
   * `f ? step : @result` — and plans them as in-place updates charging the same costs.
   */
  private accumulation(e: ComprehensionExpr, accuSlot: number): { fresh: () => unknown; step: Interp } | undefined {
    const isAccu = (x: Expr) => x.kind === 'ident' && x.name === e.accuVar;
    const init = e.accuInit;
    let step = e.loopStep;
    let filter: Expr | undefined;
    if (step.kind === 'call' && step.fn === Op.conditional && step.args.length === 3 && isAccu(step.args[2])) {
      filter = step.args[0];
      step = step.args[1];
    }
    if (step.kind !== 'call' || !isAccu(step.args[0] ?? step)) return undefined;
    let kind: 'append' | 'insertKV' | 'insertMap';
    if (init.kind === 'list' && init.elements.length === 0 && step.fn === Op.add && step.args.length === 2) {
      const list = step.args[1];
      if (list.kind !== 'list' || list.elements.length !== 1 || list.optionalIndices.length) return undefined;
      kind = 'append';
    } else if (init.kind === 'map' && init.entries.length === 0 && step.fn === MAP_INSERT_FN) {
      kind = step.args.length === 3 ? 'insertKV' : 'insertMap';
    } else return undefined;

    const filterFn = filter ? this.node(filter).fn : undefined;
    const appendOp = step.kind === 'call' && step.args[1].kind === 'list' ? step.args[1] : undefined;
    const elemPlanned = kind === 'append' ? this.node(appendOp!.elements[0]) : undefined;
    const elem = elemPlanned?.fn;
    // `[c]` of a constant is folded (OptOptimize) and costs nothing to build.
    const appendCost = (elemPlanned?.constant ? 0 : LIST_CREATE_COST) + 1;
    const keyFn = kind === 'insertKV' ? this.node(step.args[1]).fn : undefined;
    const valueFn = kind === 'insertKV' ? this.node(step.args[2]).fn : kind === 'insertMap' ? this.node(step.args[1]).fn : undefined;
    // cel-go charges an Add call on lists and the mapInsert call at their default cost of 1.
    const accuRead = (s: EvalState) => {
      s.cost++;
      const acc = s.slots[accuSlot];
      if (acc instanceof CelEvalError) throw acc;
      return acc;
    };
    const run: Interp = (s) => {
      if (filterFn) {
        const f = filterFn(s);
        // `f ? step : @result`: the conditional attribute resolves @result without observing it (free).
        if (f === false) {
          const acc = s.slots[accuSlot];
          if (acc instanceof CelEvalError) throw acc;
          return acc;
        }
        if (f !== true) throw noSuchOverload();
      }
      const acc = accuRead(s);
      if (kind === 'append') {
        const v = elem!(s);
        charge(s, appendCost);
        checkBuiltSize((acc as CelValue[]).length + 1, 'a list built by a comprehension');
        (acc as CelValue[]).push(v);
        return acc;
      }
      if (kind === 'insertKV') {
        const k = keyFn!(s);
        const v = valueFn!(s);
        charge(s, 1);
        checkBuiltSize((acc as Map<CelValue, CelValue>).size + 1, 'a map built by a comprehension');
        insertInPlace(acc as Map<CelValue, CelValue>, k, v);
        return acc;
      }
      const entries = valueFn!(s);
      charge(s, 1);
      if (!isMapValue(entries)) throw callFailure(MAP_INSERT_FN, [acc, entries]);
      checkBuiltSize((acc as Map<CelValue, CelValue>).size + 1, 'a map built by a comprehension');
      for (const k of mapKeys(entries as CelMapValue)) insertInPlace(acc as Map<CelValue, CelValue>, k, mapGet(entries as CelMapValue, k) as CelValue);
      return acc;
    };
    return { fresh: kind === 'append' ? () => [] : () => buildMap([], []), step: run };
  }
}

const MAP_INSERT_FN = 'cel.@mapInsert';

/** A lazy object's field, or its CEL error as a value (cel-go's interopFoldableMap passes Get's error on). */
function lazyFieldOrError(o: LazyObject, name: string): CelValue {
  try {
    return o.field(name) as CelValue;
  } catch (err) {
    if (err instanceof CelEvalError && !isCostError(err)) return err;
    throw err;
  }
}

/**
 * Adds k → v to a map the comprehension owns; a key the map finds is an error, as in cel-go. A double or
 * null key (stored as itself) can only come from a map that holds one (a cel-go map).
 */
function insertInPlace(m: Map<CelValue, CelValue>, k: CelValue, v: CelValue): void {
  const nk = storedKey(k, true);
  if (nk === undefined) throw new CelEvalError(`unsupported key type: ${typeNameOf(k)}`);
  if (mapHas(m, k)) throw new CelEvalError(`insert failed: key ${formatKey(k)} already exists`);
  if (k instanceof CelUint) markUintKey(m, nk as bigint);
  m.set(nk, v);
}

/** A value cel-go's set-membership optimization takes (types.IsPrimitiveType, bytes excluded). */
function isSetElement(v: CelValue): boolean {
  return typeof v === 'string' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || v instanceof CelUint;
}

/**
 * An operand that failed, kept in its place: cel-go evaluates both sides of `==`, `!=`, `in` and of any
 * call of two arguments before the call, which is charged when one is an error (its size then counts as 1).
 */
class FailedSide {
  constructor(readonly error: unknown) {}
}

/** The operand's value, or its failure (a cost-limit error still ends the evaluation). */
function sideOf(f: Interp, s: EvalState): CelValue | FailedSide {
  try {
    return f(s) as CelValue;
  } catch (err) {
    if (isCostError(err)) throw err;
    return new FailedSide(err);
  }
}

/** The error to raise for two operands of which at least one failed: the left one's first. */
function firstFailure(a: CelValue | FailedSide, b: CelValue | FailedSide): unknown {
  return a instanceof FailedSide ? a.error : (b as FailedSide).error;
}

/** An operand as a call's cost function sees it: a failure as its error value. */
function asValue(side: CelValue | FailedSide): CelValue {
  return side instanceof FailedSide ? (side.error as CelValue) : side;
}

/** An attribute found by `resolve`, its root charged 1 when it is evaluated as itself (cel-go's evalWatchAttr). */
function rootAttribute(resolve: Interp): Planned {
  return {
    attribute: true,
    observe: 1,
    fn: (s) => {
      s.cost++;
      return resolve(s);
    },
    resolve,
  };
}

/** The elements or characters a library call was given and returned, as review guard ticks (see invoke). */
function callWork(args: readonly CelValue[], result: CelValue): number {
  let work = 1;
  for (const a of args) if (typeof a === 'string' || Array.isArray(a)) work += a.length;
  if (typeof result === 'string' || Array.isArray(result)) work += result.length;
  return work;
}
