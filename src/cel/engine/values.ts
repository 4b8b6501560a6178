/**
 * The runtime value model. Library functions receive and return these values.
 *
 * | CEL type    | JS value                                                                  |
 * |-------------|---------------------------------------------------------------------------|
 * | null        | `null`                                                                    |
 * | bool        | `boolean`                                                                 |
 * | int         | `bigint` (within int64)                                                   |
 * | uint        | `CelUint` (a bigint within uint64, boxed so it is not an int)             |
 * | double      | `number`                                                                  |
 * | string      | `string`                                                                  |
 * | bytes       | `Uint8Array`                                                              |
 * | list        | JS array of CEL values                                                     |
 * | map         | `Map` (CEL-built), or a plain object read from a JSON document            |
 * | timestamp   | `Timestamp`: nanoseconds since the epoch (`ns`)                           |
 * | duration    | `Duration`: total nanoseconds (`ns`)                                       |
 * | type        | `TypeValue`                                                               |
 * | optional    | `CelOptional`                                                             |
 * | Object{...} | `StructValue` (also JSONPatch{...})                                       |
 * | library     | instances of the classes libraries register (Quantity, IP, ...)           |
 *
 * Plain objects are JSON documents: reading a number from one gives an int when it is integral (and
 * was not written as a float literal, see src/json) and a double otherwise; arrays inside them are
 * converted on read (json.ts). Everything else never needs conversion.
 */

import { objectKeys } from './object-keys.js';
import { runeCount } from './rune-index.js';

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

/** A uint value: a bigint in [0, 2^64), boxed so that it is distinguishable from an int. */
export class CelUint {
  constructor(readonly value: bigint) {
    if (value < 0n || value > UINT64_MAX) throw new RangeError(`uint out of range: ${value}`);
  }
  valueOf(): bigint {
    return this.value;
  }
  toString(): string {
    return this.value.toString();
  }
}

/** An optional value (`optional.of(x)` / `optional.none()`). */
export class CelOptional {
  private static readonly NONE = new CelOptional(false, undefined);
  private constructor(
    private readonly present: boolean,
    private readonly content: unknown,
  ) {}
  static of(value: unknown): CelOptional {
    return new CelOptional(true, value);
  }
  static none(): CelOptional {
    return CelOptional.NONE;
  }
  hasValue(): boolean {
    return this.present;
  }
  /** The value; throws when there is none (callers check hasValue() first). */
  value(): CelValue {
    if (!this.present) throw new RangeError('optional.none() dereference');
    return this.content as CelValue;
  }
}

/** Seconds range of google.protobuf.Timestamp: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z. */
export const TS_MIN_SECONDS = -62135596800n;
export const TS_MAX_SECONDS = 253402300799n;
export const NANOS_PER_SECOND = 1_000_000_000n;

export class Timestamp {
  constructor(
    /** Nanoseconds since 1970-01-01T00:00:00Z. */
    readonly ns: bigint,
    /**
     * Seconds east of UTC of the zone it was parsed in: Go's time.Parse keeps a `+01:00` offset in the
     * time.Time, arithmetic keeps it, and cel-go's string conversion prints it. Nothing else sees it
     * (equality, ordering and the calendar getters work on the instant, in UTC or the zone asked for).
     */
    readonly offset = 0,
  ) {}
  get seconds(): bigint {
    return floorDiv(this.ns, NANOS_PER_SECOND);
  }
  get nanos(): number {
    return Number(this.ns - this.seconds * NANOS_PER_SECOND);
  }
}

export class Duration {
  constructor(
    /** Total nanoseconds (negative for negative durations). */
    readonly ns: bigint,
  ) {}
  /** Whole seconds, truncated toward zero (google.protobuf.Duration.seconds). */
  get seconds(): bigint {
    return this.ns / NANOS_PER_SECOND;
  }
  /** Nanoseconds beyond `seconds`, with the sign of the duration (google.protobuf.Duration.nanos). */
  get nanos(): number {
    return Number(this.ns % NANOS_PER_SECOND);
  }
}

export class TypeValue {
  private static readonly interned = new Map<string, TypeValue>();
  private constructor(readonly name: string) {}
  static of(name: string): TypeValue {
    let t = TypeValue.interned.get(name);
    if (!t) TypeValue.interned.set(name, (t = new TypeValue(name)));
    return t;
  }
  toString(): string {
    return this.name;
  }
}

/**
 * A value of a message-like type: Kubernetes `Object`/`Object.x.y` literals, `JSONPatch`, and Go structs
 * of cel-go's ext.NativeTypes (Kyverno's `user.ServiceAccount`). A native struct has every declared
 * field, but `fields` holds only those not at Go's zero value (so has() and `==` read as cel-go's IsSet
 * and reflect.DeepEqual do); `zeroOf` gives a declared field's zero value, undefined for no such field.
 */
export class StructValue {
  constructor(
    readonly typeName: string,
    readonly fields: Map<string, CelValue>,
    readonly zeroOf?: (field: string) => CelValue | undefined,
  ) {}
}

/** Go's reflect.Value.IsZero for a scalar field of a native struct ("", 0, +0.0, false, null). */
export function isGoZeroScalar(v: CelValue): boolean {
  if (v === '' || v === 0n || v === false || v === null) return true;
  if (typeof v === 'number') return v === 0 && !Object.is(v, -0);
  return v instanceof CelUint && v.value === 0n;
}

/**
 * An object whose fields are computed on demand (Kubernetes' lazily evaluated `variables`). Field
 * selection and has() call into it; it is not a map and cannot be iterated.
 */
export abstract class LazyObject {
  abstract readonly typeName: string;
  /** The field's value, or undefined when there is no such field. Throws CEL errors. */
  abstract field(name: string): CelValue | undefined;
  abstract has(name: string): boolean;
  /** The field names in order: what a comprehension over the object ranges over. */
  abstract names(): readonly string[];
}

export type CelMapValue = Map<CelValue, CelValue> | { [key: string]: unknown };

export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | CelUint
  | readonly CelValue[]
  | CelMapValue
  | Timestamp
  | Duration
  | TypeValue
  | CelOptional
  | StructValue
  | object;

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** Code-point length of a JS string (CEL strings are sequences of code points). */
export const stringSize = runeCount;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  // Most are JSON objects, which inherit `constructor` from Object.prototype: one property read, where
  // V8's Object.getPrototypeOf is a runtime call. (A CEL value never holds a function, so an own member
  // named `constructor` cannot pass for Object; it and null-prototype objects take the full test.)
  if ((v as { constructor?: unknown }).constructor === Object) return true;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

export function isMapValue(v: unknown): v is CelMapValue {
  return v instanceof Map || isPlainObject(v);
}

export function mapSize(m: CelMapValue): number {
  return m instanceof Map ? m.size : objectKeys(m).length;
}
