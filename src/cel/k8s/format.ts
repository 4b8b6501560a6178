/**
 * Printing CEL values for people and tools (`amender eval`): JSON where JSON can say it, and tagged
 * objects where it cannot.
 *
 * | CEL value                    | printed as                                                   |
 * |------------------------------|--------------------------------------------------------------|
 * | null, bool, string           | JSON null / true / false / "..."                             |
 * | int within ±2^53             | JSON number (`42`)                                           |
 * | int beyond ±2^53             | `{"$int": "9223372036854775807"}`                            |
 * | uint                         | `{"$uint": "42"}`                                            |
 * | double                       | JSON number; integral doubles keep a fraction (`1.0`);       |
 * |                              | NaN/±Infinity as `{"$double": "NaN"}`                        |
 * | bytes                        | `{"$bytes": "<base64>"}`                                     |
 * | timestamp                    | `{"$timestamp": "2024-01-01T00:00:00.123456789Z"}`           |
 * | duration                     | `{"$duration": "1.5s"}`                                      |
 * | type                         | `{"$type": "int"}`                                           |
 * | optional                     | `{"$optional": <value>}` or `{"$optional": null, "none": true}` |
 * | list / map with string keys  | JSON array / object                                          |
 * | map with other keys          | `{"$map": [[key, value], ...]}`                              |
 * | Object{...} / JSONPatch{...} | `{"$object": "<type name>", "fields": {...}}`                |
 * | library value (net.IP, ...)  | `{"$<type name>": "<its string form>"}` (`{"$net.IP": "::1"}`) |
 */
import { mapGet, mapKeys, typeNameOf } from '../engine/runtime.js';
import { formatDuration, formatTimestamp } from '../engine/time.js';
import {
  CelOptional,
  CelUint,
  Duration,
  LazyObject,
  StructValue,
  Timestamp,
  TypeValue,
  isMapValue,
  type CelMapValue,
  type CelValue,
} from '../engine/values.js';
import { base64 } from './convert.js';

const SAFE = 2n ** 53n;

/** The value as a JSON-serialisable structure (see the table above). */
function toDisplayJson(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'bigint':
      return v > -SAFE && v < SAFE ? Number(v) : { $int: v.toString() };
    case 'number':
      return Number.isFinite(v) ? new DoubleText(v) : { $double: String(v) };
  }
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(toDisplayJson);
  if (v instanceof CelUint) return { $uint: v.valueOf().toString() };
  if (v instanceof Uint8Array) return { $bytes: base64(v) };
  if (v instanceof Timestamp) return { $timestamp: formatTimestamp(v) };
  if (v instanceof Duration) return { $duration: formatDuration(v) };
  if (v instanceof TypeValue) return { $type: v.name };
  if (v instanceof CelOptional) return v.hasValue() ? { $optional: toDisplayJson(v.value()) } : { $optional: null, none: true };
  if (v instanceof StructValue) {
    const fields: Record<string, unknown> = {};
    for (const [k, f] of v.fields) setData(fields, k, toDisplayJson(f));
    return { $object: v.typeName, fields };
  }
  if (v instanceof LazyObject) return { $object: v.typeName };
  if (isMapValue(v)) {
    const keys = mapKeys(v as CelMapValue);
    if (keys.every((k) => typeof k === 'string')) {
      const out: Record<string, unknown> = {};
      for (const k of keys) setData(out, k as string, toDisplayJson(mapGet(v as CelMapValue, k)));
      return out;
    }
    return { $map: keys.map((k) => [toDisplayJson(k), toDisplayJson(mapGet(v as CelMapValue, k))]) };
  }
  return { [`$${typeNameOf(v)}`]: String(v) };
}

/** `out[key] = value` where `__proto__` (a valid field name and map key) stays data, not the prototype. */
function setData(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** A double printed with a fraction when integral, so `1.0` stays distinguishable from `1`. */
class DoubleText {
  constructor(readonly v: number) {}
}

/** JSON text of a CEL value (see the table above). */
export function formatCelValue(v: CelValue): string {
  return stringify(toDisplayJson(v));
}

function stringify(x: unknown): string {
  if (x instanceof DoubleText) {
    const t = JSON.stringify(x.v);
    return Number.isInteger(x.v) && /^-?\d+$/.test(t) ? `${t}.0` : t;
  }
  if (Array.isArray(x)) return `[${x.map(stringify).join(',')}]`;
  if (x !== null && typeof x === 'object') {
    return `{${Object.entries(x).map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(x);
}

/** The CEL type name of a value (`int`, `list`, `google.protobuf.Timestamp`, `Quantity`, ...). */
export function celTypeName(v: CelValue): string {
  return typeNameOf(v);
}
