/**
 * Function declarations: overloads with static signatures (for the checker), runtime guards (for
 * dispatch on dynamic values), implementations and cost functions.
 */
import { CelType, Kind, hasTypeParams } from './types.js';
import { CelOptional, CelUint, Duration, StructValue, Timestamp, TypeValue, isMapValue, type CelValue } from './values.js';

export type Impl = (...args: any[]) => CelValue;
export type CostFn = (args: readonly CelValue[], result: CelValue) => number;

export interface Overload {
  readonly id: string;
  readonly fn: string;
  /** Receiver-style (`x.f(y)`): params[0] is the receiver. */
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  readonly hasTypeParams: boolean;
  /** Implementation; undefined for operators the planner evaluates itself (&&, ||, ?:, ==, ...). */
  impl?: Impl;
  /** Actual runtime cost of one call; undefined means the default of 1. */
  cost?: CostFn;
  /** Runtime argument checks used when the checker could not pick a single overload. */
  readonly guards: readonly ((v: unknown) => boolean)[];
  /** The library that registered it (for cost callbacks and diagnostics). */
  readonly library?: string;
  /**
   * A library function declared pure (its result and cost depend on its arguments only, no effect):
   * a call of it with constant arguments may be evaluated when the expression is planned. The standard
   * functions (no `library`) all are.
   */
  readonly pure?: boolean;
}

export class FunctionDecl {
  readonly overloads: Overload[] = [];
  constructor(readonly name: string) {}

  add(o: Overload): void {
    const key = signatureKey(o);
    const i = this.overloads.findIndex((x) => x.id === o.id || signatureKey(x) === key);
    // A later declaration of the same signature replaces the earlier one (libraries may override
    // the standard library, e.g. RE2 `matches`).
    if (i >= 0) {
      // Keep the replaced overload's cost function as the fallback (cel-go's built-in cost rules
      // apply by overload, whoever implements it).
      if (!o.cost && this.overloads[i].cost) o.cost = this.overloads[i].cost;
      this.overloads[i] = o;
    } else this.overloads.push(o);
  }
}

/** Receiver style and parameter types: overloads with the same key have the same signature. */
const signatureKeys = new WeakMap<Overload, string>();
function signatureKey(o: Overload): string {
  let key = signatureKeys.get(o);
  if (key === undefined) signatureKeys.set(o, (key = `${o.member ? 'm' : 'g'}(${o.params.join(',')})`));
  return key;
}

/** Registered library classes, for runtime type names and guards (Quantity, net.IP, ...). */
const classTypes = new Map<Function, string>();
/** Every class registered under a type name (environments may each register their own class). */
const typeClasses = new Map<string, Function[]>();

export function registerValueClass(ctor: Function, typeName: string): void {
  classTypes.set(ctor, typeName);
  const list = typeClasses.get(typeName);
  if (!list) typeClasses.set(typeName, [ctor]);
  else if (!list.includes(ctor)) list.push(ctor);
}

/** True when `v` is an instance of a class registered as `typeName`. */
function isInstanceOfType(v: object, typeName: string): boolean {
  if (classTypes.get(v.constructor) === typeName) return true;
  const list = typeClasses.get(typeName);
  if (list) for (const c of list) if (v instanceof c) return true;
  return false;
}

export function classTypeName(v: object): string | undefined {
  return classTypes.get(v.constructor);
}

function anyValue(): boolean {
  return true;
}

function guardFor(t: CelType): (v: unknown) => boolean {
  switch (t.kind) {
    case Kind.Dyn:
    case Kind.TypeParam:
    case Kind.Error:
      return anyValue;
    case Kind.Null:
      return (v) => v === null;
    case Kind.Bool:
      return (v) => typeof v === 'boolean';
    case Kind.Int:
      return (v) => typeof v === 'bigint';
    case Kind.Uint:
      return (v) => v instanceof CelUint;
    case Kind.Double:
      return (v) => typeof v === 'number';
    case Kind.String:
      return (v) => typeof v === 'string';
    case Kind.Bytes:
      return (v) => v instanceof Uint8Array;
    case Kind.Timestamp:
      return (v) => v instanceof Timestamp;
    case Kind.Duration:
      return (v) => v instanceof Duration;
    case Kind.List:
      return (v) => Array.isArray(v);
    case Kind.Map:
      return isMapValue;
    case Kind.Type:
      return (v) => v instanceof TypeValue;
    case Kind.Struct: {
      const name = t.name;
      return (v) => (v instanceof StructValue && v.typeName === name) || (isMapValue(v) && !(v instanceof Map));
    }
    case Kind.Opaque: {
      if (t.name === 'optional_type') return (v) => v instanceof CelOptional;
      const name = t.name;
      return (v) => typeof v === 'object' && v !== null && isInstanceOfType(v, name);
    }
  }
}

export function makeOverload(spec: {
  id: string;
  fn: string;
  member?: boolean;
  params: CelType[];
  result: CelType;
  impl?: Impl;
  cost?: CostFn;
  library?: string;
  pure?: boolean;
}): Overload {
  return {
    id: spec.id,
    fn: spec.fn,
    member: spec.member ?? false,
    params: spec.params,
    result: spec.result,
    hasTypeParams: spec.params.some(hasTypeParams) || hasTypeParams(spec.result),
    impl: spec.impl,
    cost: spec.cost,
    guards: spec.params.map(guardFor),
    library: spec.library,
    ...(spec.pure ? { pure: true } : {}),
  };
}

/** Picks the first overload whose runtime guards accept the arguments (receiver first for members). */
export function dispatch(overloads: readonly Overload[], args: readonly CelValue[]): Overload | undefined {
  outer: for (let k = 0; k < overloads.length; k++) {
    const o = overloads[k];
    const g = o.guards;
    if (g.length !== args.length) continue;
    for (let i = 0; i < g.length; i++) if (!g[i](args[i])) continue outer;
    return o;
  }
  return undefined;
}
