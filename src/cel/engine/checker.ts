/**
 * Static type checker, following cel-go's checker: identifier and qualified-name resolution with the
 * container, field selection on maps/structs/optionals, overload resolution with type-parameter
 * unification, aggregate literal joins, comprehensions. Annotates the AST in place and reports issues
 * with cel-go's message texts.
 */
import { Op, qualifiedName, type CallExpr, type ComprehensionExpr, type Expr, type IdentExpr, type SelectExpr } from './ast.js';
import type { Env, IdentDecl, StructDecl } from './env.js';
import type { CelIssue } from './errors.js';
import type { Overload } from './functions.js';
import {
  CelType,
  Kind,
  Mapping,
  T,
  instantiate,
  isAssignable,
  isAssignableList,
  isDyn,
  isDynOrError,
  isOptionalType,
  listOf,
  mapOf,
  mostGeneral,
  optionalOf,
  structType,
  substitute,
  typeEquals,
  typeParam,
} from './types.js';

/** Resolution recorded on identifier / select nodes. */
export interface Resolved {
  /** A comprehension variable (by name). */
  local?: string;
  /** A declared identifier (variable or type constant). */
  decl?: IdentDecl;
}

declare module './ast.js' {
  interface IdentExpr {
    resolved?: Resolved;
  }
  interface SelectExpr {
    /** Set when the whole select chain named a declared identifier (`a.b.c`). */
    resolved?: Resolved;
    /** Struct declaration of the operand's static type, when it is a struct. */
    operandStruct?: StructDecl;
  }
  interface CallExpr {
    /** The operand struct for `_?._` on a typed struct. */
    operandStruct?: StructDecl;
  }
  interface StructExpr {
    decl?: StructDecl;
  }
}

export interface CheckResult {
  type: CelType;
  issues: CelIssue[];
  /** The expression type-checked without error (cel-go then runs every AST validator, whatever each finds). */
  typeChecked: boolean;
}

const TYPE_VARS: CelType[] = [];

const HOMOGENEITY_EXEMPT_FUNCTION = 'format';

/** The type parameter names an overload's signature uses (computed once per overload). */
const paramNames = new WeakMap<Overload, string[]>();
function typeParamNames(o: Overload): string[] {
  let names = paramNames.get(o);
  if (!names) {
    const found = new Set<string>();
    const collect = (t: CelType) => {
      if (t.kind === Kind.TypeParam) found.add(t.name);
      t.params.forEach(collect);
    };
    o.params.forEach(collect);
    collect(o.result);
    paramNames.set(o, (names = [...found]));
  }
  return names;
}

export function check(root: Expr, env: Env): CheckResult {
  const c = new Checker(env);
  c.check(root);
  for (const e of c.visited) if (e.type) e.type = substitute(c.mappings, e.type, true);
  const typeChecked = c.issues.length === 0;
  if (env.homogeneousAggregateLiterals && typeChecked) c.validateHomogeneousLiterals();
  return { type: root.type ?? T.error, issues: c.issues, typeChecked };
}

/**
 * cel-go's Type.IsEquivalentType: the same kind, name and parameters, type parameters matching any
 * type parameter. `dyn` is equivalent to `dyn` only (no assignability).
 */
function equivalentType(a: CelType, b: CelType): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length) return false;
  if (a.kind !== Kind.TypeParam && a.name !== b.name) return false;
  for (let i = 0; i < a.params.length; i++) if (!equivalentType(a.params[i], b.params[i])) return false;
  return true;
}

/** An optional element's or entry's value type: the optional's parameter. */
function unwrapOptional(t: CelType): CelType {
  return isOptionalType(t) ? t.params[0] : t;
}

class Checker {
  mappings = new Mapping();
  private freeVars = 0;
  readonly issues: CelIssue[] = [];
  readonly visited: Expr[] = [];
  /** Comprehension scopes, innermost last. */
  private readonly scopes: Map<string, CelType>[] = [];
  /** Depth of calls whose literal arguments may mix types (see checkCall). */
  private homogeneityExempt = 0;
  /** List and map literals inside such calls. */
  private readonly exemptLiterals = new Set<Expr>();

  constructor(private readonly env: Env) {}

  private error(pos: number, message: string): void {
    this.issues.push({ message, offset: pos });
  }

  private setType(e: Expr, t: CelType): void {
    e.type = t;
    this.visited.push(e);
  }

  private newTypeVar(): CelType {
    const n = this.freeVars++;
    // Type variables are identified by name within one check; the same objects serve every check.
    return (TYPE_VARS[n] ??= typeParam(`_var${n}`));
  }

  private isAssignable(t1: CelType, t2: CelType): boolean {
    const m = isAssignable(this.mappings, t1, t2);
    if (m) this.mappings = m;
    return !!m;
  }

  private lookupLocal(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i].get(name);
      if (t) return t;
    }
    return undefined;
  }

  private containerName(): string {
    return this.env.container;
  }

  check(e: Expr): void {
    switch (e.kind) {
      case 'literal':
        this.setType(e, literalType(e.value));
        return;
      case 'ident':
        return this.checkIdent(e);
      case 'select':
        return this.checkSelect(e);
      case 'call':
        return this.checkCall(e);
      case 'list': {
        if (this.homogeneityExempt > 0) this.exemptLiterals.add(e);
        let elem: CelType | undefined;
        const opt = new Set(e.optionalIndices);
        e.elements.forEach((el, i) => {
          this.check(el);
          let t = el.type!;
          if (opt.has(i)) {
            if (isOptionalType(t)) t = t.params[0];
            else if (!isDyn(t)) this.error(el.pos, `expected type '${optionalOf(t)}' but found '${t}'`);
          }
          elem = this.joinTypes(elem, t);
        });
        this.setType(e, listOf(elem ?? this.newTypeVar()));
        return;
      }
      case 'map': {
        if (this.homogeneityExempt > 0) this.exemptLiterals.add(e);
        let kt: CelType | undefined;
        let vt: CelType | undefined;
        for (const entry of e.entries) {
          this.check(entry.key);
          kt = this.joinTypes(kt, entry.key.type!);
          this.check(entry.value);
          let t = entry.value.type!;
          if (entry.optional) {
            if (isOptionalType(t)) t = t.params[0];
            else if (!isDyn(t)) this.error(entry.value.pos, `expected type '${optionalOf(t)}' but found '${t}'`);
          }
          vt = this.joinTypes(vt, t);
        }
        this.setType(e, kt ? mapOf(kt, vt!) : mapOf(this.newTypeVar(), this.newTypeVar()));
        return;
      }
      case 'struct': {
        const decl = this.env.lookupStruct(e.typeName);
        if (!decl) {
          // cel-go (checkCreateStruct): a type that is not a message is named so; an undeclared one
          // ends the check of the literal, its field values unchecked.
          const notMessage = this.nonMessageType(e.typeName);
          if (notMessage) {
            this.error(e.pos, `'${notMessage}' is not a message type`);
            for (const f of e.fields) {
              this.check(f.value);
              this.error(f.pos, `unexpected failed resolution of '${notMessage}'`);
            }
          } else {
            this.error(e.pos, `undeclared reference to '${e.typeName.replace(/^\./, '')}' (in container '${this.containerName()}')`);
          }
          this.setType(e, T.error);
          return;
        }
        e.decl = decl;
        e.typeName = decl.name;
        this.setType(e, structType(decl.name));
        for (const f of e.fields) {
          this.check(f.value);
          const ft = decl.fieldType(f.name);
          if (!ft) {
            this.error(f.pos, `undefined field '${f.name}'`);
            continue;
          }
          let vt = f.value.type!;
          if (f.optional) {
            if (isOptionalType(vt)) vt = vt.params[0];
            else if (!isDyn(vt)) this.error(f.value.pos, `expected type '${optionalOf(vt)}' but found '${vt}'`);
          }
          if (!this.isAssignable(ft, vt)) {
            this.error(f.pos, `expected type of field '${f.name}' is '${ft}' but provided type is '${vt}'`);
          }
        }
        return;
      }
      case 'comprehension':
        return this.checkComprehension(e);
    }
  }

  /**
   * The name of the type `name` denotes when it is a type identifier of a kind no message literal
   * builds (`int{}`, `list{}`, an opaque type); undefined otherwise. cel-go builds the well-known
   * types (timestamp, duration, null, dyn) as protobuf messages, which this engine does not declare.
   */
  private nonMessageType(name: string): string | undefined {
    const ident = this.env.lookupIdent(name);
    if (!ident || ident.value === undefined || ident.type.kind !== Kind.Type) return undefined;
    const t = ident.type.params[0];
    if (!t) return undefined;
    switch (t.kind) {
      case Kind.Timestamp:
      case Kind.Duration:
      case Kind.Null:
      case Kind.Dyn:
      case Kind.Struct:
      case Kind.Error:
        return undefined;
      default:
        return t.name;
    }
  }

  private joinTypes(prev: CelType | undefined, cur: CelType): CelType {
    if (!prev) return cur;
    if (this.isAssignable(prev, cur)) return mostGeneral(prev, cur);
    return T.dyn;
  }

  /**
   * cel-go's homogeneous aggregate literal validator (cel/validator.go, which Kubernetes enables): after
   * checking, every element of a list literal must have a type equivalent to the first's (the first
   * mismatch is reported), every map key to the first key's and every value to the first value's; an
   * optional element or entry counts with its value type. Equivalent, not assignable: `[object.x, 'a']`
   * mixes dyn and string and is refused. Literals inside a `format` call are exempt.
   */
  validateHomogeneousLiterals(): void {
    const mismatch = (e: Expr, expected: CelType, actual: CelType) =>
      this.error(e.pos, `expected type '${expected}' but found '${actual}'`);
    for (const e of this.visited) {
      if (this.exemptLiterals.has(e)) continue;
      if (e.kind === 'list') {
        const opt = new Set(e.optionalIndices);
        let first: CelType | undefined;
        for (let i = 0; i < e.elements.length; i++) {
          const el = e.elements[i];
          const t = opt.has(i) ? unwrapOptional(el.type!) : el.type!;
          if (!first) first = t;
          else if (!equivalentType(first, t)) {
            mismatch(el, first, t);
            break;
          }
        }
      } else if (e.kind === 'map') {
        let kt: CelType | undefined;
        let vt: CelType | undefined;
        for (const entry of e.entries) {
          const k = entry.key.type!;
          const v = entry.optional ? unwrapOptional(entry.value.type!) : entry.value.type!;
          if (!kt || !vt) {
            kt = k;
            vt = v;
            continue;
          }
          if (!equivalentType(kt, k)) mismatch(entry.key, kt, k);
          if (!equivalentType(vt, v)) mismatch(entry.value, vt, v);
        }
      }
    }
  }

  private checkIdent(e: IdentExpr): void {
    const local = e.name.startsWith('.') ? undefined : this.lookupLocal(e.name);
    if (local) {
      e.resolved = { local: e.name };
      this.setType(e, local);
      return;
    }
    const decl = this.env.lookupIdent(e.name);
    if (decl) {
      e.resolved = { decl };
      this.setType(e, decl.type);
      return;
    }
    this.setType(e, T.error);
    this.error(e.pos, `undeclared reference to '${e.name.replace(/^\./, '')}' (in container '${this.containerName()}')`);
  }

  private rootIsLocal(e: Expr): boolean {
    while (e.kind === 'select') e = e.operand;
    return e.kind === 'ident' && !e.name.startsWith('.') && this.lookupLocal(e.name) !== undefined;
  }

  private checkSelect(e: SelectExpr): void {
    if (!e.testOnly && !this.rootIsLocal(e)) {
      const q = qualifiedName(e);
      if (q !== undefined) {
        const decl = this.env.lookupIdent(q);
        if (decl) {
          e.resolved = { decl };
          this.setType(e, decl.type);
          return;
        }
      }
    }
    let t = this.checkSelectField(e, e.operand, e.field, false);
    if (e.testOnly) t = T.bool;
    this.setType(e, substitute(this.mappings, t, false));
  }

  private checkSelectField(e: SelectExpr | CallExpr, operand: Expr, field: string, optional: boolean): CelType {
    this.check(operand);
    const operandType = substitute(this.mappings, operand.type!, false);
    const isOpt = isOptionalType(operandType);
    const target = isOpt ? operandType.params[0] : operandType;
    let result: CelType = T.error;
    switch (target.kind) {
      case Kind.Map:
        result = target.params[1];
        break;
      case Kind.Struct: {
        const decl = this.env.lookupStruct(target.name);
        if (!decl) {
          this.error(e.pos, `unexpected failed resolution of '${target.name}'`);
          break;
        }
        e.operandStruct = decl;
        const ft = decl.fieldType(field);
        if (ft) result = ft;
        else this.error(e.pos, `undefined field '${field}'`);
        break;
      }
      case Kind.TypeParam:
        this.isAssignable(T.dyn, target);
        result = T.dyn;
        break;
      default:
        if (!isDynOrError(target)) this.error(e.pos, `type '${target}' does not support field selection`);
        result = T.dyn;
    }
    if (isOpt || optional) return optionalOf(result);
    return result;
  }

  private checkCall(e: CallExpr): void {
    // cel-go's strings extension exempts every list and map literal inside a `format` call from the
    // homogeneous-literal rule (`"%s-%d".format([name, 42])`).
    const exempt = e.fn === HOMOGENEITY_EXEMPT_FUNCTION;
    if (exempt) this.homogeneityExempt++;
    try {
      this.checkCallExpr(e);
    } finally {
      if (exempt) this.homogeneityExempt--;
    }
  }

  private checkCallExpr(e: CallExpr): void {
    if (e.fn === Op.optSelect) return this.checkOptSelect(e);
    for (const a of e.args) this.check(a);
    if (!e.target) {
      const fn = this.env.lookupFunction(e.fn);
      if (!fn) {
        this.error(e.pos, `undeclared reference to '${e.fn.replace(/^\./, '')}' (in container '${this.containerName()}')`);
        this.setType(e, T.error);
        return;
      }
      e.fn = fn.name;
      this.resolveOverload(e, fn.overloads, null);
      return;
    }
    // Namespaced function: a.b.f() where "a.b.f" is a declared function.
    if (!this.rootIsLocal(e.target)) {
      const q = qualifiedName(e.target);
      if (q !== undefined) {
        const fn = this.env.lookupFunction(`${q}.${e.fn}`);
        if (fn) {
          e.fn = fn.name;
          e.target = null;
          this.resolveOverload(e, fn.overloads, null);
          return;
        }
      }
    }
    this.check(e.target);
    const fn = this.env.lookupFunction(e.fn);
    if (!fn) {
      this.setType(e, T.error);
      this.error(e.pos, `undeclared reference to '${e.fn}' (in container '${this.containerName()}')`);
      return;
    }
    this.resolveOverload(e, fn.overloads, e.target);
  }

  private checkOptSelect(e: CallExpr): void {
    const [operand, field] = e.args;
    if (field.kind !== 'literal' || typeof field.value !== 'string') {
      this.error(field.pos, `unsupported optional field selection`);
      this.setType(e, T.error);
      return;
    }
    field.type = T.string;
    const t = this.checkSelectField(e, operand, field.value, true);
    this.setType(e, substitute(this.mappings, t, false));
  }

  private resolveOverload(e: CallExpr, overloads: readonly Overload[], target: Expr | null): void {
    const argTypes: CelType[] = [];
    if (target) argTypes.push(target.type!);
    for (const a of e.args) argTypes.push(a.type!);

    if (e.fn === Op.and || e.fn === Op.or) {
      let ok = true;
      e.args.forEach((a, i) => {
        if (!this.isAssignable(argTypes[i], T.bool)) {
          this.error(a.pos, `expected type 'bool' but found '${substitute(this.mappings, argTypes[i], true)}'`);
          ok = false;
        }
      });
      e.overloads = overloads.slice(0, 1);
      this.setType(e, ok ? T.bool : T.error);
      return;
    }

    let result: CelType | undefined;
    const matched: Overload[] = [];
    for (const o of overloads) {
      if (o.member !== (target !== null)) continue;
      if (o.params.length !== argTypes.length) continue;
      let params = o.params;
      let res = o.result;
      if (o.hasTypeParams) {
        const fresh = new Map<string, CelType>();
        for (const name of typeParamNames(o)) fresh.set(name, this.newTypeVar());
        params = params.map((p) => instantiate(p, fresh));
        res = instantiate(res, fresh);
      }
      const m = isAssignableList(this.mappings, argTypes, params);
      if (!m) continue;
      this.mappings = m;
      matched.push(o);
      const r = substitute(this.mappings, res, false);
      if (!result) result = r;
      else if (!isDyn(result) && !typeEquals(r, result)) result = T.dyn;
    }
    if (!result) {
      const shown = argTypes.map((t) => substitute(this.mappings, t, true).toString());
      const sig = target ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      this.error(e.pos, `found no matching overload for '${e.fn}' applied to '${sig}'`);
      this.setType(e, T.error);
      return;
    }
    e.overloads = matched;
    this.setType(e, result);
  }

  private checkComprehension(e: ComprehensionExpr): void {
    this.check(e.iterRange);
    this.check(e.accuInit);
    const rangeType = substitute(this.mappings, e.iterRange.type!, false);
    const accuType = e.accuInit.type!;
    this.scopes.push(new Map([[e.accuVar, accuType]]));
    let varType: CelType;
    let var2Type: CelType | undefined;
    switch (rangeType.kind) {
      case Kind.List:
        varType = rangeType.params[0];
        if (e.iterVar2) {
          var2Type = varType;
          varType = T.int;
        }
        break;
      case Kind.Map:
        varType = rangeType.params[0];
        if (e.iterVar2) var2Type = rangeType.params[1];
        break;
      case Kind.Dyn:
      case Kind.Error:
      case Kind.TypeParam:
        this.isAssignable(T.dyn, rangeType);
        varType = T.dyn;
        if (e.iterVar2) var2Type = T.dyn;
        break;
      default:
        this.error(e.iterRange.pos, `expression of type '${rangeType}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        varType = T.error;
        if (e.iterVar2) var2Type = T.error;
    }
    const loop = new Map<string, CelType>([[e.iterVar, varType]]);
    if (e.iterVar2) loop.set(e.iterVar2, var2Type!);
    this.scopes.push(loop);
    this.check(e.loopCondition);
    this.assertType(e.loopCondition, T.bool);
    this.check(e.loopStep);
    this.assertType(e.loopStep, accuType);
    this.scopes.pop();
    this.check(e.result);
    this.scopes.pop();
    this.setType(e, substitute(this.mappings, e.result.type!, false));
  }

  private assertType(e: Expr, t: CelType): void {
    if (!this.isAssignable(t, e.type!)) {
      this.error(e.pos, `expected type '${substitute(this.mappings, t, true)}' but found '${substitute(this.mappings, e.type!, true)}'`);
    }
  }
}

function literalType(v: unknown): CelType {
  switch (typeof v) {
    case 'boolean':
      return T.bool;
    case 'bigint':
      return T.int;
    case 'number':
      return T.double;
    case 'string':
      return T.string;
  }
  if (v === null) return T.null;
  if (v instanceof Uint8Array) return T.bytes;
  return T.uint;
}
