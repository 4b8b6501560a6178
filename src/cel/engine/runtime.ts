/**
 * Runtime operations shared by the interpreter and the standard library: type names, CEL
 * (heterogeneous) equality, ordering, map access with numeric key unification, and value sizes.
 */
import { compareStrings } from '../../go/index.js';
import { activeGuard } from './bounds.js';
import { CelEvalError, noSuchOverload } from './errors.js';
import { classTypeName } from './functions.js';
import { readJson } from './json.js';
import { mapKeys, rememberUintKeys } from './map-keys.js';
import { objectKeys } from './object-keys.js';
import { structEquals } from './struct-equality.js';

export { mapKeys, markUintKey } from './map-keys.js';
import {
  CelOptional,
  CelUint,
  Duration,
  LazyObject,
  StructValue,
  Timestamp,
  TypeValue,
  isPlainObject,
  stringSize,
  type CelMapValue,
  type CelValue,
} from './values.js';

const hasOwn = Object.prototype.hasOwnProperty;

/** The CEL type name of a runtime value (what `type(v)` denotes). */
export function typeNameOf(v: unknown): string {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'object':
      if (v === null) return 'null_type';
      if (Array.isArray(v)) return 'list';
      if (v instanceof Map || isPlainObject(v)) return 'map';
      if (v instanceof CelUint) return 'uint';
      if (v instanceof Uint8Array) return 'bytes';
      if (v instanceof Timestamp) return 'google.protobuf.Timestamp';
      if (v instanceof Duration) return 'google.protobuf.Duration';
      if (v instanceof TypeValue) return 'type';
      if (v instanceof CelOptional) return 'optional_type';
      if (v instanceof StructValue) return v.typeName;
      if (v instanceof LazyObject) return v.typeName;
      return classTypeName(v) ?? celTypeNameProperty(v) ?? 'unknown';
  }
  return 'unknown';
}

/** Library values may name their CEL type themselves (`celTypeName`, see src/cel/lib/values.ts). */
function celTypeNameProperty(v: object): string | undefined {
  const n = (v as { celTypeName?: unknown }).celTypeName;
  return typeof n === 'string' ? n : undefined;
}

/** Normalizes a key for storage/lookup in a CEL-built Map: numbers unify across int/uint/double. */
export function normKey(k: CelValue): CelValue | undefined {
  if (typeof k === 'string' || typeof k === 'boolean' || typeof k === 'bigint') return k;
  if (k instanceof CelUint) return k.valueOf();
  if (typeof k === 'number') return Number.isInteger(k) ? BigInt(k) : undefined;
  return undefined;
}

/**
 * The key a CEL-built Map stores `k` under, or undefined for a key it cannot hold. Ints and uints share
 * their bigint; a double (cel-go only) stays a JS number, a key of its own beside an equal int, as
 * cel-go's Go map keeps Double(1) apart from Int(1) (common/types/map.go refValMapAccessor).
 */
export function storedKey(k: CelValue, doubleAndNull: boolean): CelValue | undefined {
  if (typeof k === 'string' || typeof k === 'boolean' || typeof k === 'bigint') return k;
  if (k instanceof CelUint) return k.valueOf();
  if (doubleAndNull && (typeof k === 'number' || k === null)) return k;
  return undefined;
}

/**
 * Builds a map from entries, with CEL's key rules; throws on unsupported keys. A repeated key is an
 * error by cel-spec ('error'); cel-go (so Kubernetes) writes its entries into a Go map in order, so
 * the last one wins ('replace', interpreter/interpretable.go evalMap), and an entry whose value is
 * undefined (an optional entry without a value) removes the key written before it. cel-spec allows
 * int, uint, bool and string keys; cel-go's Go map takes a double or null key too (`doubleAndNullKeys`).
 */
export function buildMap(
  keys: readonly CelValue[],
  values: readonly (CelValue | undefined)[],
  repeated: 'error' | 'replace' = 'error',
  doubleAndNullKeys = false,
): Map<CelValue, CelValue> {
  const m = new Map<CelValue, CelValue>();
  let uints: Set<bigint> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const nk = storedKey(k, doubleAndNullKeys);
    if (nk === undefined) throw new CelEvalError(`unsupported key type: ${typeNameOf(k)}`);
    const v = values[i];
    if (m.has(nk)) {
      if (repeated === 'error') throw new CelEvalError(`Failed with repeated key`);
      uints?.delete(nk as bigint);
    }
    if (v === undefined) {
      m.delete(nk);
      continue;
    }
    m.set(nk, v);
    if (k instanceof CelUint) (uints ??= new Set()).add(k.valueOf());
  }
  if (uints) rememberUintKeys(m, uints);
  return m;
}

/**
 * Returns a copy of `m` with k → v added; error on a key `m` finds (cel-go's mutableMap.Insert). A
 * double or null key can only come from a map that already holds one (a cel-go map).
 */
export function mapInsert(m: CelMapValue, k: CelValue, v: CelValue): Map<CelValue, CelValue> {
  if (mapHas(m, k)) throw new CelEvalError(`insert failed: key ${formatKey(k)} already exists`);
  const keys = [...mapKeys(m)];
  const values = keys.map((key) => mapGet(m, key) as CelValue);
  keys.push(k);
  values.push(v);
  return buildMap(keys, values, 'error', true);
}

/** A map key as cel-go's 'insert failed: key %v already exists' prints it. */
export function formatKey(k: CelValue): string {
  return typeof k === 'string' ? k : String(k instanceof CelUint ? k.valueOf() : k);
}

/** Value stored under `key`, or undefined when absent. */
export function mapGet(m: CelMapValue, key: CelValue): CelValue | undefined {
  if (m instanceof Map) {
    // cel-go's Find: the key itself first (a double or null key of a cel-go map), then a double
    // as the int or uint it equals.
    if (typeof key === 'number' || key === null) {
      const v = m.get(key);
      if (v !== undefined || key === null) return v;
    }
    const nk = normKey(key);
    return nk === undefined ? undefined : m.get(nk);
  }
  if (typeof key !== 'string') return undefined;
  return hasOwn.call(m, key) ? readJson(m, key, (m as Record<string, unknown>)[key]) : undefined;
}

export function mapHas(m: CelMapValue, key: CelValue): boolean {
  if (m instanceof Map) {
    if ((typeof key === 'number' || key === null) && m.has(key)) return true;
    const nk = normKey(key);
    return nk !== undefined && m.has(nk);
  }
  return typeof key === 'string' && hasOwn.call(m, key);
}

/**
 * Size used by the cost model (cel-go `actualSize`, interpreter/runtimecost.go): strings/bytes/lists/maps,
 * a library value's own `celSize()` (a traits.Sizer: Kubernetes' net.IP and net.CIDR), an optional's
 * value; else 1.
 */
export function actualSize(v: unknown): number {
  if (typeof v === 'string') return stringSize(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  if (isPlainObject(v)) return objectKeys(v).length;
  if (typeof v !== 'object' || v === null) return 1;
  if (v instanceof CelOptional) return v.hasValue() ? actualSize(v.value()) : 1;
  const own = (v as { celSize?: unknown }).celSize;
  return typeof own === 'function' ? (own.call(v) as number) : 1;
}

function numericCompare(a: unknown, b: unknown): number | undefined {
  // returns -1/0/1, NaN-aware: undefined when either is NaN; throws nothing
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'bigint') {
    if (tb === 'bigint') return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
    if (b instanceof CelUint) return (a as bigint) < b.valueOf() ? -1 : (a as bigint) > b.valueOf() ? 1 : 0;
    if (tb === 'number') return compareIntDouble(a as bigint, b as number);
    return undefined;
  }
  if (a instanceof CelUint) {
    if (tb === 'bigint') return a.valueOf() < (b as bigint) ? -1 : a.valueOf() > (b as bigint) ? 1 : 0;
    if (b instanceof CelUint) return a.valueOf() < b.valueOf() ? -1 : a.valueOf() > b.valueOf() ? 1 : 0;
    if (tb === 'number') return compareUintDouble(a.valueOf(), b as number);
    return undefined;
  }
  if (ta === 'number') {
    if (tb === 'number') {
      if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    }
    if (tb === 'bigint') {
      const c = compareIntDouble(b as bigint, a as number);
      return c === undefined ? undefined : -c;
    }
    if (b instanceof CelUint) {
      const c = compareUintDouble(b.valueOf(), a as number);
      return c === undefined ? undefined : -c;
    }
  }
  return undefined;
}

/**
 * An int against a double as cel-go compares them (common/types/compare.go), so as the API server does: a
 * double beyond the int64 range decides by its sign, otherwise the int becomes a double, which rounds
 * beyond 2^53. `dyn(9223372036854775807) < 9223372036854775808.0` is false (cel-spec's
 * `not_lt_dyn_int_big_lossy_double`).
 */
function compareIntDouble(i: bigint, d: number): number | undefined {
  if (Number.isNaN(d)) return undefined;
  if (d < -9223372036854775808) return 1;
  if (d > 9223372036854775807) return -1;
  return compareDoubles(Number(i), d);
}

/** A uint against a double, the same way (the uint64 range: a negative double is smaller). */
function compareUintDouble(u: bigint, d: number): number | undefined {
  if (Number.isNaN(d)) return undefined;
  if (d < 0) return 1;
  if (d > 18446744073709551615) return -1;
  return compareDoubles(Number(u), d);
}

function compareDoubles(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isNumber(v: unknown): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || v instanceof CelUint;
}

/** CEL equality (heterogeneous: values of different types are unequal, numbers compare by value). */
export function celEquals(a: unknown, b: unknown): boolean {
  return equalsOrError(a, b) === true;
}

/**
 * cel-go's `types.Equal`, as the `==` operator reads it: true, false, or undefined for the "no such
 * overload" error that a Kubernetes library value's Equal returns for a value of another type
 * (apiserver pkg/cel/quantity.go, ip.go, url.go...: `dyn(quantity('1')) == 1` fails). A list or map
 * compares its elements with it and stops only at a false, so such an error counts as equal there
 * (common/types/list.go baseList.Equal: `[dyn(quantity('1'))] == [dyn(1)]` is true).
 */
export function equalsOrError(a: unknown, b: unknown): boolean | undefined {
  // A library value answers even itself through its own Equal (Kubernetes' authorization values refuse).
  if (a === b && (typeof a !== 'object' || a === null || (a as { celEquals?: unknown }).celEquals === undefined)) {
    return typeof a !== 'number' || !Number.isNaN(a);
  }
  const ta = typeof a;
  if (ta === 'string' || ta === 'boolean') return false;
  if (a === null || b === null) return false;
  if (isNumber(a)) return isNumber(b) && numericCompare(a, b) === 0;
  if (ta !== 'object') return false;
  if (typeof b !== 'object') return libraryEquals(a as object, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // Values that share subtrees can be exponentially larger than they look: let the deadline in.
    activeGuard()?.tick();
    for (let i = 0; i < a.length; i++) if (equalsOrError(a[i], b[i]) === false) return false;
    return true;
  }
  if (a instanceof Map || isPlainObject(a)) {
    if (!(b instanceof Map || isPlainObject(b))) return false;
    const ma = a as CelMapValue;
    const mb = b as CelMapValue;
    const ka = mapKeys(ma);
    if (ka.length !== mapKeys(mb).length) return false;
    activeGuard()?.tick();
    for (const k of ka) {
      const vb = mapGet(mb, k);
      if (vb === undefined) return false;
      if (equalsOrError(mapGet(ma, k), vb) === false) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof Timestamp) return b instanceof Timestamp && a.ns === b.ns;
  if (a instanceof Duration) return b instanceof Duration && a.ns === b.ns;
  if (a instanceof TypeValue) return b instanceof TypeValue && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return equalsOrError(a.value(), b.value());
  }
  if (a instanceof StructValue) {
    if (!(b instanceof StructValue) || a.typeName !== b.typeName) return false;
    if (a.typeName === 'JSONPatch') {
      // A struct with zero-value defaults: an unset string field equals ''.
      for (const f of ['op', 'path', 'from']) if ((a.fields.get(f) ?? '') !== (b.fields.get(f) ?? '')) return false;
      const va = a.fields.get('value');
      const vb = b.fields.get('value');
      // JSONPatchVal.Equal returns the values' own Equal (pkg/cel/mutation/jsonpatch.go): its error too.
      return va === undefined || vb === undefined ? va === vb : equalsOrError(va, vb);
    }
    return structEquals(a, b);
  }
  return libraryEquals(a as object, b);
}

/** Library values (Quantity, net.IP, ...) bring their own equality (src/cel/library.ts); others differ. */
function libraryEquals(a: object, b: unknown): boolean | undefined {
  const own = (a as { celEquals?: unknown }).celEquals;
  if (typeof own !== 'function') return false;
  const r = own.call(a, b) as boolean | undefined;
  return r === undefined ? undefined : Boolean(r);
}

/**
 * Ordering for `<`, `<=`, `>`, `>=` (undefined when a NaN is involved); throws "no such overload", as
 * cel-go's Compare methods do, for unordered combinations.
 */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const ta = typeof a;
  if (ta === 'bigint' && typeof b === 'bigint') return (a as bigint) < b ? -1 : (a as bigint) > b ? 1 : 0;
  if (ta === 'string' && typeof b === 'string') return compareStrings(a as string, b);
  if (isNumber(a) && isNumber(b)) return numericCompare(a, b);
  if (ta === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Timestamp && b instanceof Timestamp) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof Duration && b instanceof Duration) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  throw noSuchOverload();
}

/** Code-point order (UTF-16 order differs for characters beyond the BMP): Go's string order. */
export { compareStrings };
