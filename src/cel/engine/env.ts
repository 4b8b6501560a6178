/**
 * A type-checking / evaluation environment: functions, identifiers (variables and type names), struct
 * types and options. Environments form a chain: a child shares its parent's declarations and adds its
 * own (per-policy variables), so building one per expression is cheap.
 */
import { FunctionDecl, type Overload } from './functions.js';
import { T, listOf, mapOf, opaqueType, optionalOf, parseTypeString, structType, typeOf, typeParam, type CelType } from './types.js';
import { TypeValue, type CelValue } from './values.js';
import type { Expander } from './macros.js';
import type { CallExpr } from './ast.js';
import type { CelIssue } from './errors.js';

export interface IdentDecl {
  readonly name: string;
  readonly type: CelType;
  /** Constant value (type names); undefined for variables bound at evaluation. */
  readonly value?: CelValue;
}

export interface StructDecl {
  readonly name: string;
  /** Field type, or undefined when the field does not exist. */
  fieldType(field: string): CelType | undefined;
  /**
   * Kubernetes typed objects (request, namespaceObject) read from JSON: missing or null fields
   * read as the zero value of their declared type.
   */
  readonly zeroDefaults?: boolean;
  /**
   * With zeroDefaults, for a Go struct: its fields tagged `omitempty`, which kube-apiserver's value of
   * the struct lacks when they hold Go's zero value (`''`, 0, false, an empty list or map for a
   * `value`; nil for a `pointer`): reading one is then `no such key`, has() is false. Every other
   * field is always there (has() is true).
   */
  readonly omitEmpty?: ReadonlyMap<string, 'value' | 'pointer'>;
  /**
   * A Go struct of cel-go's ext.NativeTypes: a literal of it is a StructValue without its zero-valued
   * scalar fields, whose missing fields read as their zero value (see StructValue).
   */
  readonly native?: boolean;
}

/** Returns the compile error for a constant argument, or undefined when it is valid. */
export type LiteralCheck = (literal: string) => string | undefined;

/** Returns the compile error of a type-checked call (a cel-go AST validator), or undefined when it is valid. */
export type CallCheck = (call: CallExpr) => CelIssue | undefined;

/**
 * A check of a constant argument when the program is created (cel-go's RegexOptimization): argument
 * `index` of the call, a method's receiver counting as argument 0.
 */
export interface PlanCheck {
  readonly index: number;
  readonly check: LiteralCheck;
}

export interface EnvOptions {
  /** Mixed-type list/map literals are a compile error (Kubernetes' HomogeneousAggregateLiterals). */
  homogeneousAggregateLiterals?: boolean;
  container?: string;
}

export class Env {
  private readonly fns = new Map<string, FunctionDecl>();
  /** Overloads declared lazily, built when their name is first looked up (see addLazyFunction). */
  private readonly pendingFns = new Map<string, (() => Overload)[]>();
  private readonly idents = new Map<string, IdentDecl>();
  private readonly structs = new Map<string, StructDecl>();
  private readonly structResolvers: ((name: string) => StructDecl | undefined)[] = [];
  private readonly typeNames = new Map<string, CelType>();
  private readonly literalChecks = new Map<string, LiteralCheck>();
  private readonly callChecks = new Map<string, CallCheck>();
  private readonly planChecks = new Map<string, PlanCheck>();
  private readonly macroDefs = new Map<string, Expander>();
  readonly homogeneousAggregateLiterals: boolean;
  readonly container: string;
  /** Changes whenever a declaration is added; part of program cache keys. */
  private version = 0;

  constructor(
    private readonly parent?: Env,
    options: EnvOptions = {},
  ) {
    this.homogeneousAggregateLiterals = options.homogeneousAggregateLiterals ?? parent?.homogeneousAggregateLiterals ?? false;
    this.container = options.container ?? parent?.container ?? '';
  }

  extend(options: EnvOptions = {}): Env {
    return new Env(this, options);
  }

  // ---- declarations
  addFunction(o: Overload): void {
    this.materialize(o.fn);
    this.declare(o);
    this.version++;
  }

  /**
   * Declares an overload of `name` that is built on the first lookup of that name: library
   * signatures are parsed only when an expression uses them, which keeps them out of the cold
   * start. Declarations of one name keep their order (a later one replaces an equal signature).
   */
  addLazyFunction(name: string, make: () => Overload): void {
    const pending = this.pendingFns.get(name);
    if (pending) pending.push(make);
    else this.pendingFns.set(name, [make]);
    this.version++;
  }

  /** Builds every lazy declaration now (tests check that each library signature is valid). */
  materializeAll(): void {
    for (const name of [...this.pendingFns.keys()]) this.materialize(name);
    this.parent?.materializeAll();
  }

  private materialize(name: string): void {
    const pending = this.pendingFns.get(name);
    if (!pending) return;
    this.pendingFns.delete(name);
    for (const make of pending) this.declare(make());
  }

  private declare(o: Overload): void {
    let f = this.fns.get(o.fn);
    if (!f) {
      const inherited = this.parent?.lookupFunctionExact(o.fn);
      f = new FunctionDecl(o.fn);
      if (inherited) for (const x of inherited.overloads) f.overloads.push(x);
      this.fns.set(o.fn, f);
    }
    f.add(o);
  }

  addIdent(decl: IdentDecl): void {
    this.idents.set(decl.name, decl);
    this.version++;
  }

  addStruct(decl: StructDecl): void {
    const t = structType(decl.name);
    this.structs.set(decl.name, decl);
    this.typeNames.set(decl.name, t);
    this.addIdent({ name: decl.name, type: typeOf(t), value: TypeValue.of(decl.name) });
  }

  /** Struct types resolved by name pattern (Kubernetes `Object.*`). */
  addStructResolver(r: (name: string) => StructDecl | undefined): void {
    this.structResolvers.push(r);
    this.version++;
  }

  /** An opaque (library) type such as `Quantity` or `net.IP`. */
  addOpaqueType(name: string): CelType {
    const t = opaqueType(name);
    this.typeNames.set(name, t);
    this.addIdent({ name, type: typeOf(t), value: TypeValue.of(name) });
    return t;
  }

  /** A compile-time check of a constant argument of `fn` (see validators.ts). */
  addLiteralCheck(fn: string, check: LiteralCheck): void {
    this.literalChecks.set(fn, check);
    this.version++;
  }

  /** A compile-time check of a type-checked call of `fn` (see validators.ts). */
  addCallCheck(fn: string, check: CallCheck): void {
    this.callChecks.set(fn, check);
    this.version++;
  }

  /** A check of a constant argument of `fn` when the program is created (see the planner). */
  addPlanCheck(fn: string, check: PlanCheck): void {
    this.planChecks.set(fn, check);
    this.version++;
  }

  // ---- lookups
  lookupPlanCheck(fn: string): PlanCheck | undefined {
    return this.planChecks.get(fn) ?? this.parent?.lookupPlanCheck(fn);
  }

  lookupLiteralCheck(fn: string): LiteralCheck | undefined {
    return this.literalChecks.get(fn) ?? this.parent?.lookupLiteralCheck(fn);
  }

  lookupCallCheck(fn: string): CallCheck | undefined {
    return this.callChecks.get(fn) ?? this.parent?.lookupCallCheck(fn);
  }

  lookupFunctionExact(name: string): FunctionDecl | undefined {
    if (this.pendingFns.size !== 0) this.materialize(name);
    return this.fns.get(name) ?? this.parent?.lookupFunctionExact(name);
  }

  lookupFunction(name: string): FunctionDecl | undefined {
    return this.resolve(name, this.lookupFunctionExact);
  }

  lookupIdentExact(name: string): IdentDecl | undefined {
    return this.idents.get(name) ?? this.parent?.lookupIdentExact(name);
  }

  lookupIdent(name: string): IdentDecl | undefined {
    return this.resolve(name, this.lookupIdentExact);
  }

  lookupStruct(name: string): StructDecl | undefined {
    return this.resolve(name, this.lookupStructExact);
  }

  /** The first of `name`'s container candidates (see candidateNames) that `exact` finds. */
  private resolve<D>(name: string, exact: (this: Env, name: string) => D | undefined): D | undefined {
    if (!this.container && !name.startsWith('.')) return exact.call(this, name);
    for (const candidate of this.candidateNames(name)) {
      const d = exact.call(this, candidate);
      if (d) return d;
    }
    return undefined;
  }

  private lookupStructExact(name: string): StructDecl | undefined {
    const s = this.structs.get(name);
    if (s) return s;
    for (const r of this.structResolvers) {
      const d = r(name);
      if (d) return d;
    }
    return this.parent?.lookupStructExact(name);
  }

  /** Declares a macro only this environment (and its children) expand; `key` is macros.ts's macroKey. */
  addMacro(key: string, expander: Expander): void {
    this.macroDefs.set(key, expander);
    this.version++;
  }

  lookupMacro(key: string): Expander | undefined {
    return this.macroDefs.get(key) ?? this.parent?.lookupMacro(key);
  }

  lookupTypeName(name: string): CelType | undefined {
    return this.typeNames.get(name) ?? this.parent?.lookupTypeName(name);
  }

  /** cel-go container resolution: `a.b` + `x` → `a.b.x`, `a.x`, `x`; a leading dot is absolute. */
  candidateNames(name: string): string[] {
    if (name.startsWith('.')) return [name.slice(1)];
    if (!this.container) return [name];
    const out: string[] = [];
    let prefix = this.container;
    for (;;) {
      out.push(`${prefix}.${name}`);
      const dot = prefix.lastIndexOf('.');
      if (dot < 0) break;
      prefix = prefix.slice(0, dot);
    }
    out.push(name);
    return out;
  }

  parseType(text: string): CelType {
    return parseTypeString(text, (n) => this.lookupTypeName(n));
  }

  get cacheKey(): string {
    return `${this.parent?.cacheKey ?? ''}/${this.version}`;
  }
}

/** Declares the built-in type identifiers (`int`, `list`, `google.protobuf.Timestamp`, ...). */
export function declareStandardTypes(env: Env): void {
  const A = typeParam('A');
  const B = typeParam('B');
  const decls: [string, CelType][] = [
    ['bool', T.bool],
    ['bytes', T.bytes],
    ['double', T.double],
    ['int', T.int],
    ['uint', T.uint],
    ['string', T.string],
    ['null_type', T.null],
    ['type', T.type],
    ['list', listOf(A)],
    ['map', mapOf(A, B)],
    ['google.protobuf.Timestamp', T.timestamp],
    ['google.protobuf.Duration', T.duration],
    ['optional_type', optionalOf(A)],
  ];
  for (const [name, t] of decls) env.addIdent({ name, type: typeOf(t), value: TypeValue.of(name) });
}
