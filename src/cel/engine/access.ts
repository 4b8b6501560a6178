/**
 * Field selection, presence tests, optional selection and indexing on values at run time, as the planned
 * attribute closures call them: JSON objects first (the common case), typed zero values for Kubernetes
 * objects, and cel-go's errors for what cannot be selected or indexed. Plain functions, kept apart from
 * the planner, which only decides which one a node calls.
 */
import type { StructDecl } from './env.js';
import { hasOwn, ownMember, type JsonObject } from '../../json/index.js';
import { CelEvalError, noSuchOverload } from './errors.js';
import { goTypeText, goValueText } from './go-text.js';
import { readJson } from './json.js';
import { mapGet, typeNameOf } from './runtime.js';
import { parseTimestamp } from './time.js';
import { CelType, Kind } from './types.js';
import { CelOptional, CelUint, INT64_MAX, LazyObject, StructValue, Timestamp, isMapValue, isPlainObject, type CelValue } from './values.js';

/** Zero value of a declared field type (Kubernetes typed objects read from JSON, Go native structs). */
export function zeroValue(t: CelType): CelValue {
  switch (t.kind) {
    case Kind.String:
      return '';
    case Kind.Int:
      return 0n;
    case Kind.Uint:
      return new CelUint(0n);
    case Kind.Double:
      return 0;
    case Kind.Bool:
      return false;
    case Kind.List:
      return [];
    case Kind.Map:
    case Kind.Struct:
      return {};
    case Kind.Timestamp:
      return new Timestamp(-62135596800n * 1_000_000_000n);
    default:
      return null;
  }
}

/** A JSON value read through a typed field (strings become timestamps where declared). */
function typedRead(v: CelValue, t: CelType): CelValue {
  if (v === null || v === undefined) return zeroValue(t);
  if (t.kind === Kind.Timestamp && typeof v === 'string') {
    const ts = parseTimestamp(v);
    if (!ts) throw new CelEvalError(`invalid timestamp '${v}'`);
    return ts;
  }
  return v;
}

/**
 * An `omitempty` field of a Go struct holding its zero value (StructDecl.omitEmpty): kube-apiserver's
 * value of the struct (its JSON, or the reflection of SchemalessTypedToVal) does not have it.
 */
function omitted(struct: StructDecl, v: JsonObject, field: string): boolean {
  const kind = struct.omitEmpty?.get(field);
  if (kind === undefined) return false;
  const x = hasOwn(v, field) ? v[field] : undefined;
  if (x === undefined || x === null) return true;
  if (kind === 'pointer') return false;
  if (Array.isArray(x)) return x.length === 0;
  if (isPlainObject(x)) return Object.keys(x).length === 0;
  return x === '' || x === 0 || x === false;
}

export function selectField(v: unknown, field: string, struct: StructDecl | undefined, strict = false): CelValue {
  // A JSON object first: by far the most common operand (none of the classes below is a plain object).
  if (isPlainObject(v)) {
    if (struct?.zeroDefaults) {
      const t = struct.fieldType(field);
      if (t) {
        if (omitted(struct, v as JsonObject, field)) throw new CelEvalError(`no such key: ${field}`);
        return typedRead(hasOwn(v, field) ? readJson(v, field, v[field]) : undefined, t);
      }
    }
    const x = ownMember(v as JsonObject, field);
    if (x !== undefined) return readJson(v, field, x);
    throw new CelEvalError(`no such key: ${field}`);
  }
  if (v instanceof CelOptional) return optionalSelect(v, field, struct, strict);
  if (v instanceof LazyObject) {
    const x = v.field(field);
    if (x === undefined) throw new CelEvalError(`no such key: ${field}`);
    return x;
  }
  if (v instanceof Map) {
    const x = v.get(field);
    if (x !== undefined) return x;
    throw new CelEvalError(`no such key: ${field}`);
  }
  if (v instanceof StructValue) {
    if (v.fields.has(field)) return v.fields.get(field)!;
    if (v.typeName === 'JSONPatch') return field === 'value' ? null : '';
    if (v.zeroOf) {
      // A native Go struct has every declared field (cel-go nativeObj.Get).
      const zero = v.zeroOf(field);
      if (zero !== undefined) return zero;
      throw new CelEvalError(`no such field: ${field}`);
    }
    throw new CelEvalError(`no such key: ${field}`);
  }
  // cel-go qualifies a field like a string index: a list rejects the index type, any other value
  // has no such key.
  if (Array.isArray(v)) throw fieldOfList();
  throw new CelEvalError(`no such key: ${field}`);
}

export function hasField(v: unknown, field: string, struct: StructDecl | undefined, strict: boolean): boolean {
  if (isPlainObject(v)) {
    if (struct?.zeroDefaults) {
      // A Go struct's field is always there, but for an omitempty one holding its zero value.
      if (struct.omitEmpty) return struct.fieldType(field) !== undefined && !omitted(struct, v as JsonObject, field);
      const x = ownMember(v as JsonObject, field);
      return x !== undefined && x !== null;
    }
    // A plain read (ownMember): a JSON member is never undefined, so no own-property test per has().
    return ownMember(v as JsonObject, field) !== undefined;
  }
  if (v instanceof CelOptional) return v.hasValue() ? hasField(v.value(), field, struct, strict) : false;
  if (v instanceof LazyObject) return v.has(field);
  if (v instanceof Map) return v.has(field);
  if (v instanceof StructValue) {
    if (!v.fields.has(field)) return false;
    if (v.typeName === 'JSONPatch' && field !== 'value') return v.fields.get(field) !== '';
    return true;
  }
  // Kubernetes does not enable cel-go's EnableErrorOnBadPresenceTest: has() on a value without fields
  // is false, not an error (a list still rejects the index type).
  if (strict) throw new CelEvalError(`invalid type for field selection: ${typeNameOf(v)}`);
  if (Array.isArray(v)) throw fieldOfList();
  return false;
}

export function optionalSelect(v: unknown, field: string, struct: StructDecl | undefined, strict: boolean): CelOptional {
  if (v instanceof CelOptional) {
    if (!v.hasValue()) return CelOptional.none();
    v = v.value();
  }
  // A lazy object (MAP's `variables`) is a cel-go Mapper: its field is found and read.
  if (isMapValue(v) || v instanceof StructValue || v instanceof LazyObject) {
    if (!hasField(v, field, struct, strict)) return CelOptional.none();
    return CelOptional.of(selectField(v, field, struct, strict));
  }
  // A presence test on a value without fields: none, as has() is false (see hasField).
  if (strict) throw new CelEvalError(`type '${typeNameOf(v)}' does not support field selection`);
  if (Array.isArray(v)) throw fieldOfList();
  return CelOptional.none();
}

/**
 * The position `k` names in `list`, or undefined when it is out of range. cel-go's IndexOrError: an int,
 * or a uint or double that converts to an int64 without loss.
 */
function listIndex(list: readonly CelValue[], k: unknown): number | undefined {
  let i: number;
  if (typeof k === 'bigint') i = Number(k);
  else if (k instanceof CelUint) {
    if (k.valueOf() > INT64_MAX) throw new CelEvalError(`unsupported index value ${goValueText(k)} in list`);
    i = Number(k.valueOf());
  } else if (typeof k === 'number') {
    if (!Number.isInteger(k) || k < -(2 ** 63) || k >= 2 ** 63) throw new CelEvalError(`unsupported index value ${goValueText(k)} in list`);
    i = k;
  } else throw new CelEvalError(`unsupported index type '${typeNameOf(k)}' in list`);
  if (i < 0 || i >= list.length) return undefined;
  return i;
}

/**
 * A value cel-go can make an index qualifier of (interpreter/attributes.go newQualifier: string, int,
 * uint, bool, double); any other fails to qualify anything, before the container is looked at.
 */
export function isQualifierKey(k: unknown): boolean {
  return typeof k === 'string' || typeof k === 'bigint' || typeof k === 'number' || typeof k === 'boolean' || k instanceof CelUint;
}

export function invalidQualifier(k: unknown): string {
  return `invalid qualifier type: ${goTypeText(k)}`;
}

export function indexValue(container: unknown, k: unknown, optional: boolean): CelValue {
  if (container instanceof CelOptional) {
    if (!container.hasValue()) return CelOptional.none();
    return indexValue(container.value(), k, true);
  }
  if (!isQualifierKey(k)) throw new CelEvalError(invalidQualifier(k));
  if (Array.isArray(container)) {
    const i = listIndex(container, k);
    if (i === undefined) {
      if (optional) return CelOptional.none();
      // Attribute resolution's missing index (cel-go resolves every index through a qualifier).
      throw new CelEvalError(`index out of bounds: ${goValueText(k)}`);
    }
    return optional ? CelOptional.of(container[i]) : container[i];
  }
  if (isMapValue(container)) {
    const v = mapGet(container, k as CelValue);
    if (v === undefined) {
      if (optional) return CelOptional.none();
      throw new CelEvalError(`no such key: ${goValueText(k)}`);
    }
    return optional ? CelOptional.of(v) : v;
  }
  if (container instanceof LazyObject) return lazyIndex(container, k, optional);
  if (container instanceof StructValue && container.typeName === 'JSONPatch') return jsonPatchIndex(container, k, optional);
  // A value that cannot be indexed: cel-go's qualifier finds no such key (a presence test, nothing).
  if (optional) return CelOptional.none();
  throw new CelEvalError(`no such key: ${goValueText(k)}`);
}

/**
 * Kubernetes' lazy map (pkg/cel/lazy MapValue) is a Mapper: its Find takes string keys only (else
 * MaybeNoSuchOverloadErr), and a missing name is attribute resolution's missing key.
 */
function lazyIndex(v: LazyObject, k: unknown, optional: boolean): CelValue {
  if (typeof k !== 'string') throw noSuchOverload();
  const x = v.field(k);
  if (x === undefined) {
    if (optional) return CelOptional.none();
    throw new CelEvalError(`no such key: ${k}`);
  }
  return optional ? CelOptional.of(x) : x;
}

const JSON_PATCH_FIELDS = ['op', 'path', 'from', 'value'];

/**
 * JSONPatch (pkg/cel/mutation/jsonpatch.go JSONPatchVal) is an Indexer and FieldTester: Get and IsSet
 * know its four fields and refuse any other index, printing it with Go's `%s`. (Object{} values are
 * neither, so their index is a missing key, as for any value that cannot be indexed.)
 */
function jsonPatchIndex(v: StructValue, k: unknown, optional: boolean): CelValue {
  const known = typeof k === 'string' && JSON_PATCH_FIELDS.includes(k);
  if (optional) {
    if (!known) throw new CelEvalError(`unsupported field: ${goStringVerb(k)}`);
    if (!hasField(v, k as string, undefined, false)) return CelOptional.none();
    return CelOptional.of(selectField(v, k as string, undefined));
  }
  if (!known) throw new CelEvalError(`unsupported indexer: ${goStringVerb(k)}`);
  return selectField(v, k as string, undefined);
}

/** A CEL value printed with Go's `%s`: strings as they are, the numeric and bool types as a bad verb. */
function goStringVerb(k: unknown): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'bigint') return `%!s(types.Int=${k})`;
  if (k instanceof CelUint) return `%!s(types.Uint=${k.valueOf()})`;
  if (typeof k === 'number') return `%!s(types.Double=${goValueText(k)})`;
  if (typeof k === 'boolean') return `%!s(types.Bool=${k})`;
  return typeNameOf(k);
}

/** A field selected on a list: cel-go qualifies a field like a string index, which a list rejects. */
function fieldOfList(): CelEvalError {
  return new CelEvalError(`unsupported index type 'string' in list`);
}
