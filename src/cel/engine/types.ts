/**
 * Static CEL types for the type checker: construction, display (cel-go's `Type.String()` text, which
 * Kubernetes puts in its messages) and the unification rules of cel-go's checker (assignability with
 * type parameters, `dyn`, legacy nullability).
 */

export const enum Kind {
  Dyn,
  Error,
  Null,
  Bool,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  Timestamp,
  Duration,
  List,
  Map,
  Type,
  TypeParam,
  Struct,
  Opaque,
}

export class CelType {
  private text?: string;
  /** The type mentions a type parameter somewhere (unification needs a substitution mapping). */
  readonly free: boolean;
  constructor(
    readonly kind: Kind,
    /** Declared name: the struct/opaque/type-param name, or the primitive's name. */
    readonly name: string,
    readonly params: readonly CelType[] = [],
  ) {
    let free = kind === Kind.TypeParam;
    for (const p of params) if (p.free) free = true;
    this.free = free;
  }

  toString(): string {
    if (this.text !== undefined) return this.text;
    let s = this.name;
    if (this.params.length > 0) s += `(${this.params.map((p) => p.toString()).join(', ')})`;
    return (this.text = s);
  }
}

export const T = {
  dyn: new CelType(Kind.Dyn, 'dyn'),
  error: new CelType(Kind.Error, '*error*'),
  null: new CelType(Kind.Null, 'null_type'),
  bool: new CelType(Kind.Bool, 'bool'),
  int: new CelType(Kind.Int, 'int'),
  uint: new CelType(Kind.Uint, 'uint'),
  double: new CelType(Kind.Double, 'double'),
  string: new CelType(Kind.String, 'string'),
  bytes: new CelType(Kind.Bytes, 'bytes'),
  timestamp: new CelType(Kind.Timestamp, 'google.protobuf.Timestamp'),
  duration: new CelType(Kind.Duration, 'google.protobuf.Duration'),
  /** The bare `type` type (a type value whose parameter is unknown). */
  type: new CelType(Kind.Type, 'type'),
} as const;

const listCache = new Map<CelType, CelType>();
export function listOf(elem: CelType): CelType {
  let t = listCache.get(elem);
  if (!t) listCache.set(elem, (t = new CelType(Kind.List, 'list', [elem])));
  return t;
}

const mapCache = new Map<CelType, Map<CelType, CelType>>();
export function mapOf(key: CelType, value: CelType): CelType {
  let byValue = mapCache.get(key);
  if (!byValue) mapCache.set(key, (byValue = new Map()));
  let t = byValue.get(value);
  if (!t) byValue.set(value, (t = new CelType(Kind.Map, 'map', [key, value])));
  return t;
}

export function typeOf(param: CelType): CelType {
  return new CelType(Kind.Type, 'type', [param]);
}

export function optionalOf(elem: CelType): CelType {
  return new CelType(Kind.Opaque, 'optional_type', [elem]);
}

export function typeParam(name: string): CelType {
  return new CelType(Kind.TypeParam, name);
}

export function structType(name: string): CelType {
  return new CelType(Kind.Struct, name);
}

export function opaqueType(name: string, params: CelType[] = []): CelType {
  return new CelType(Kind.Opaque, name, params);
}

const LIST_DYN = listOf(T.dyn);
const MAP_DYN = mapOf(T.dyn, T.dyn);

export function isOptionalType(t: CelType): boolean {
  return t.kind === Kind.Opaque && t.name === 'optional_type';
}

export function isDyn(t: CelType): boolean {
  return t.kind === Kind.Dyn;
}

export function isDynOrError(t: CelType): boolean {
  return t.kind === Kind.Dyn || t.kind === Kind.Error;
}

/** Structural identity (cel-go `IsExactType`). */
export function typeEquals(a: CelType, b: CelType): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.name !== b.name || a.params.length !== b.params.length) return false;
  for (let i = 0; i < a.params.length; i++) if (!typeEquals(a.params[i], b.params[i])) return false;
  return true;
}

/**
 * Type parameter substitutions found while checking one expression. Copies share the table until
 * one of them adds a substitution (most assignability attempts add none).
 */
export class Mapping {
  private shared: boolean;
  constructor(
    private subs: Map<string, CelType> = new Map(),
    shared = false,
  ) {
    this.shared = shared;
  }
  find(t: CelType): CelType | undefined {
    return this.subs.size === 0 ? undefined : this.subs.get(t.name);
  }
  add(t: CelType, sub: CelType): void {
    if (this.shared) {
      this.subs = new Map(this.subs);
      this.shared = false;
    }
    this.subs.set(t.name, sub);
  }
  copy(): Mapping {
    return new Mapping(this.subs, true);
  }
}

function isLegacyNullable(t: CelType): boolean {
  switch (t.kind) {
    case Kind.Opaque:
    case Kind.Struct:
    case Kind.Duration:
    case Kind.Timestamp:
    case Kind.Null:
      return true;
    default:
      return false;
  }
}

/** True when t1 is as general as or more general than t2 (dyn and type params are the most general). */
function isEqualOrLessSpecific(t1: CelType, t2: CelType): boolean {
  if (t1.kind === Kind.Dyn || t1.kind === Kind.TypeParam) return true;
  if (t2.kind === Kind.Dyn || t2.kind === Kind.TypeParam) return false;
  if (t1.kind !== t2.kind) return false;
  switch (t1.kind) {
    case Kind.Opaque:
    case Kind.List:
    case Kind.Map:
      if (t1.name !== t2.name || t1.params.length !== t2.params.length) return false;
      for (let i = 0; i < t1.params.length; i++) if (!isEqualOrLessSpecific(t1.params[i], t2.params[i])) return false;
      return true;
    case Kind.Type:
      return true;
    default:
      return typeEquals(t1, t2);
  }
}

export function mostGeneral(t1: CelType, t2: CelType): CelType {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

function notReferencedIn(m: Mapping, t: CelType, within: CelType): boolean {
  if (typeEquals(t, within)) return false;
  switch (within.kind) {
    case Kind.TypeParam: {
      const sub = m.find(within);
      return sub ? notReferencedIn(m, t, sub) : true;
    }
    case Kind.Opaque:
    case Kind.List:
    case Kind.Map:
    case Kind.Type:
      for (const p of within.params) if (!notReferencedIn(m, t, p)) return false;
      return true;
    default:
      return true;
  }
}

function isValidTypeSubstitution(m: Mapping, t1: CelType, t2: CelType): [boolean, boolean] {
  if (t1.kind === t2.kind && typeEquals(t1, t2)) return [true, true];
  const t2Sub = m.find(t2);
  if (t2Sub) {
    if (t1.kind === t2Sub.kind && typeEquals(t1, t2Sub)) return [true, true];
    if (internalIsAssignable(m, t1, t2Sub)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.add(t2, t2New);
      return [true, true];
    }
    return [false, true];
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return [true, false];
  }
  return [false, false];
}

function internalIsAssignableList(m: Mapping, l1: readonly CelType[], l2: readonly CelType[]): boolean {
  if (l1.length !== l2.length) return false;
  for (let i = 0; i < l1.length; i++) if (!internalIsAssignable(m, l1[i], l2[i])) return false;
  return true;
}

/** cel-go's internalIsAssignable: can a value of type t1 be used where t2 is expected? */
function internalIsAssignable(m: Mapping, t1: CelType, t2: CelType): boolean {
  const k1 = t1.kind;
  const k2 = t2.kind;
  if (k2 === Kind.TypeParam) {
    const [valid, hasSub] = isValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (hasSub) return false;
  }
  if (k1 === Kind.TypeParam) return isValidTypeSubstitution(m, t2, t1)[0];
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (k1 === Kind.Null) return isLegacyNullable(t2);
  if (k2 === Kind.Null) return isLegacyNullable(t1);
  switch (k1) {
    case Kind.Bool:
    case Kind.Bytes:
    case Kind.Double:
    case Kind.Int:
    case Kind.String:
    case Kind.Uint:
    case Kind.Duration:
    case Kind.Timestamp:
      return k1 === k2;
    case Kind.Struct:
      return k2 === Kind.Struct && t1.name === t2.name;
    case Kind.Type:
      return k2 === Kind.Type;
    case Kind.Opaque:
    case Kind.List:
    case Kind.Map:
      return k1 === k2 && t1.name === t2.name && internalIsAssignableList(m, t1.params, t2.params);
    default:
      return false;
  }
}

/** Returns the updated mapping when t1 is assignable to t2, else undefined. */
export function isAssignable(m: Mapping, t1: CelType, t2: CelType): Mapping | undefined {
  // Without type parameters no substitution can be recorded: no copy needed.
  if (!t1.free && !t2.free) return internalIsAssignable(m, t1, t2) ? m : undefined;
  const c = m.copy();
  return internalIsAssignable(c, t1, t2) ? c : undefined;
}

export function isAssignableList(m: Mapping, l1: readonly CelType[], l2: readonly CelType[]): Mapping | undefined {
  if (l1.length !== l2.length) return undefined;
  let free = false;
  for (let i = 0; i < l1.length; i++) if (l1[i].free || l2[i].free) free = true;
  if (!free) return internalIsAssignableList(m, l1, l2) ? m : undefined;
  const c = m.copy();
  return internalIsAssignableList(c, l1, l2) ? c : undefined;
}

/** Replaces bound type parameters; unbound ones become dyn when `toDyn`. */
export function substitute(m: Mapping, t: CelType, toDyn: boolean): CelType {
  if (!t.free) return t;
  const sub = t.kind === Kind.TypeParam ? m.find(t) : undefined;
  if (sub) return substitute(m, sub, toDyn);
  if (toDyn && t.kind === Kind.TypeParam) return T.dyn;
  switch (t.kind) {
    case Kind.List:
      return listOf(substitute(m, t.params[0], toDyn));
    case Kind.Map:
      return mapOf(substitute(m, t.params[0], toDyn), substitute(m, t.params[1], toDyn));
    case Kind.Opaque:
      if (t.params.length === 0) return t;
      return new CelType(Kind.Opaque, t.name, t.params.map((p) => substitute(m, p, toDyn)));
    case Kind.Type:
      if (t.params.length === 0) return t;
      return typeOf(substitute(m, t.params[0], toDyn));
    default:
      return t;
  }
}

/** Renames the type parameters of a declaration to fresh variables so overloads do not share them. */
export function instantiate(t: CelType, fresh: Map<string, CelType>): CelType {
  switch (t.kind) {
    case Kind.TypeParam:
      return fresh.get(t.name) ?? t;
    case Kind.List:
      return listOf(instantiate(t.params[0], fresh));
    case Kind.Map:
      return mapOf(instantiate(t.params[0], fresh), instantiate(t.params[1], fresh));
    case Kind.Opaque:
      if (t.params.length === 0) return t;
      return new CelType(Kind.Opaque, t.name, t.params.map((p) => instantiate(p, fresh)));
    case Kind.Type:
      if (t.params.length === 0) return t;
      return typeOf(instantiate(t.params[0], fresh));
    default:
      return t;
  }
}

export function hasTypeParams(t: CelType): boolean {
  return t.free;
}

const BUILTIN_TYPE_NAMES = new Set([
  'list', 'map', 'optional', 'optional_type', 'type', 'dyn', 'any', 'null', 'null_type', 'bool', 'int', 'uint',
  'double', 'string', 'bytes', 'timestamp', 'google.protobuf.Timestamp', 'duration', 'google.protobuf.Duration',
]);

/** True when `name` (without parameters) is a type name parseTypeString knows without resolving it. */
export function isBuiltinTypeName(name: string): boolean {
  return BUILTIN_TYPE_NAMES.has(name) || /^[A-Z]$/.test(name);
}

/**
 * Parses the type syntax used by library declarations: angle brackets (`list<string>`,
 * `map<string, int>`, `optional<A>`) or cel-go's spelling (`list(string)`, `optional_type(A)`). Single
 * capital letters are type parameters; other unknown names resolve through `resolveName`.
 */
export function parseTypeString(text: string, resolveName: (name: string) => CelType | undefined): CelType {
  let pos = 0;
  const s = text.trim();
  const parseOne = (): CelType => {
    while (s[pos] === ' ') pos++;
    const start = pos;
    while (pos < s.length && /[A-Za-z0-9_.]/.test(s[pos])) pos++;
    const name = s.slice(start, pos);
    if (!name) throw new Error(`invalid type '${text}'`);
    while (s[pos] === ' ') pos++;
    const params: CelType[] = [];
    if (s[pos] === '<' || s[pos] === '(') {
      const close = s[pos] === '<' ? '>' : ')';
      pos++;
      for (;;) {
        params.push(parseOne());
        while (s[pos] === ' ') pos++;
        if (s[pos] === ',') {
          pos++;
          continue;
        }
        if (s[pos] === close) {
          pos++;
          break;
        }
        throw new Error(`invalid type '${text}'`);
      }
    }
    return buildNamed(name, params, resolveName, text);
  };
  const t = parseOne();
  while (s[pos] === ' ') pos++;
  if (pos !== s.length) throw new Error(`invalid type '${text}'`);
  return t;
}

function buildNamed(
  name: string,
  params: CelType[],
  resolveName: (name: string) => CelType | undefined,
  text: string,
): CelType {
  const arity = (n: number) => {
    if (params.length !== n) throw new Error(`invalid type '${text}': ${name} takes ${n} parameter(s)`);
  };
  switch (name) {
    case 'list':
      if (params.length === 0) return LIST_DYN;
      arity(1);
      return listOf(params[0]);
    case 'map':
      if (params.length === 0) return MAP_DYN;
      arity(2);
      return mapOf(params[0], params[1]);
    case 'optional':
    case 'optional_type':
      if (params.length === 0) return optionalOf(T.dyn);
      arity(1);
      return optionalOf(params[0]);
    case 'type':
      if (params.length === 0) return T.type;
      arity(1);
      return typeOf(params[0]);
    case 'dyn':
    case 'any':
      return T.dyn;
    case 'null':
    case 'null_type':
      return T.null;
    case 'bool':
      return T.bool;
    case 'int':
      return T.int;
    case 'uint':
      return T.uint;
    case 'double':
      return T.double;
    case 'string':
      return T.string;
    case 'bytes':
      return T.bytes;
    case 'timestamp':
    case 'google.protobuf.Timestamp':
      return T.timestamp;
    case 'duration':
    case 'google.protobuf.Duration':
      return T.duration;
  }
  if (/^[A-Z]$/.test(name) && params.length === 0) return typeParam(name);
  const resolved = resolveName(name);
  if (!resolved) throw new Error(`unknown type '${name}' in '${text}'`);
  if (params.length > 0) return new CelType(resolved.kind, resolved.name, params);
  return resolved;
}
