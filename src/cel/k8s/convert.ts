/**
 * CEL results back to JSON (spec map.md §8.2, §9.2, §9.3): JSON Patch operations from a
 * `list(JSONPatch)`, apply configurations from an `Object{...}`, with the type-name check and the
 * non-string map key error. Integral doubles are marked as float literals (src/json) so a patch keeps
 * `1.0` a double.
 */
import { ReviewAborted, type ReviewGuard } from '../../guard/index.js';
import { markFloatLiteral, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { mapGet, mapKeys, typeNameOf } from '../engine/runtime.js';
import { formatDuration, formatTimestamp } from '../engine/time.js';
import { CelUint, Duration, StructValue, Timestamp, isPlainObject, type CelMapValue, type CelValue } from '../engine/values.js';
import { JSONPATCH_TYPE, OBJECT_TYPE } from './types.js';

export class ConversionError extends Error {
  override name = 'ConversionError';
}

/** Bytes as standard base64, as Go's encoding/json writes a []byte. */
export function base64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * What the conversion in progress may still write (string lengths and nodes), and the guard whose bound
 * that is. CEL values share subtrees, so a small value can stand for an exponentially larger JSON tree:
 * conversion stops at the bound instead of building it. Conversion is synchronous: one at a time.
 */
let allowance = Infinity;
let allowanceGuard: ReviewGuard | undefined;

function spend(n: number): void {
  allowance -= n;
  if (allowance < 0) {
    throw new ReviewAborted('size', `the result of a mutation expression would be over the limit of ${allowanceGuard!.maxValueBytes} bytes per value`);
  }
}

function bounded<T>(guard: ReviewGuard | undefined, convert: () => T): T {
  if (guard === undefined) return convert();
  const outer = allowance;
  const outerGuard = allowanceGuard;
  allowance = guard.maxValueBytes;
  allowanceGuard = guard;
  try {
    return convert();
  } finally {
    allowance = outer;
    allowanceGuard = outerGuard;
  }
}

/** Converts a CEL value to JSON; `typePath` is set inside Object literals for the type-name check. */
function toJson(v: unknown, typePath: string | undefined, errors: string[], container?: object, key?: string | number): JsonValue {
  switch (typeof v) {
    case 'string':
      if (allowance !== Infinity) spend(v.length + 2);
      return v;
    case 'boolean':
      return v;
    case 'bigint':
      return Number(v);
    case 'number':
      if (!Number.isFinite(v)) throw new ConversionError(`cannot convert ${v} to JSON`);
      if (Number.isInteger(v) && container !== undefined && key !== undefined) markFloatLiteral(container, key);
      return v;
  }
  if (v === null || v === undefined) return null;
  if (allowance !== Infinity) spend(2);
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < v.length; i++) out.push(toJson(v[i], typePath, errors, out, i));
    return out;
  }
  if (v instanceof StructValue) {
    if (v.typeName === JSONPATCH_TYPE) throw new ConversionError('a JSONPatch value cannot be converted to JSON');
    if (typePath !== undefined && v.typeName !== typePath) {
      errors.push(`unexpected type name "${v.typeName}", expected "${typePath}", which matches field name path from root Object type`);
    }
    const out: JsonObject = {};
    for (const [k, fv] of v.fields) {
      // The field's type path matters only to a nested literal (directly or in a list or map).
      const path = fv !== null && typeof fv === 'object' ? `${typePath ?? v.typeName}.${k}` : undefined;
      setOwn(out, k, toJson(fv, path, errors, out, k));
    }
    return out;
  }
  if (isPlainObject(v)) return v as JsonObject;
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const k of mapKeys(v as CelMapValue)) {
      if (typeof k !== 'string') {
        throw new ConversionError(`map key "${String(k instanceof CelUint ? k.valueOf() : k)}" is of type ${typeNameOf(k)}, not string`);
      }
      setOwn(out, k, toJson(mapGet(v as CelMapValue, k), typePath, errors, out, k));
    }
    return out;
  }
  if (v instanceof CelUint) return Number(v.valueOf());
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  throw new ConversionError(`value of type ${typeNameOf(v)} cannot be converted to JSON`);
}

/** Any CEL value as JSON (maps need string keys; Object literals become objects). */
export function celToJson(v: CelValue): JsonValue {
  return toJson(v, undefined, []);
}

/**
 * The JSON Patch of a `list(JSONPatch)` result (spec §8.2), as the JSON text of the patch would read:
 * `[{ op, path, from?, value? }]` with the fields as written (the op name is not checked here; the
 * patch applier decodes it, with kube-apiserver's messages). With a review guard, conversion stops with
 * its ReviewAborted('size') once what it writes passes the guard's bound.
 */
export function toJsonPatchOperations(v: CelValue, guard?: ReviewGuard): JsonObject[] {
  return bounded(guard, () => patchOperations(v));
}

function patchOperations(v: CelValue): JsonObject[] {
  if (!Array.isArray(v)) throw new ConversionError(`expected a list of JSONPatch, got ${typeNameOf(v)}`);
  return v.map((p, i) => {
    if (!(p instanceof StructValue) || p.typeName !== JSONPATCH_TYPE) {
      throw new ConversionError(`JSONPatch list element ${i} is of type ${typeNameOf(p)}, not JSONPatch`);
    }
    const str = (f: string) => {
      const x = p.fields.get(f);
      if (x === undefined || x === null) return '';
      if (typeof x !== 'string') throw new ConversionError(`JSONPatch field ${f} must be a string, got ${typeNameOf(x)}`);
      return x;
    };
    const op: JsonObject = { op: str('op'), path: str('path') };
    const from = str('from');
    if (from !== '') op.from = from;
    if (p.fields.has('value')) {
      const errors: string[] = [];
      const value = p.fields.get('value');
      // The root literal's own name is not checked against the patch path, only nested ones.
      const root = value instanceof StructValue ? value.typeName : undefined;
      op.value = toJson(value, root, errors, op, 'value');
      if (errors.length) throw new ConversionError(`type mismatch: ${errors.join('\n')}`);
    }
    return op;
  });
}

/** The apply configuration of an `Object{...}` result (spec §9.2, §9.3); apiVersion/kind are not stamped. Guard: as above. */
export function toApplyConfiguration(v: CelValue, guard?: ReviewGuard): JsonObject {
  return bounded(guard, () => applyConfigurationOf(v));
}

function applyConfigurationOf(v: CelValue): JsonObject {
  if (!(v instanceof StructValue) || v.typeName !== OBJECT_TYPE) {
    throw new ConversionError(`expected an Object, got ${typeNameOf(v)}`);
  }
  const errors: string[] = [];
  const out = toJson(v, OBJECT_TYPE, errors) as JsonObject;
  if (errors.length) throw new ConversionError(`type mismatch: ${errors.join('\n')}`);
  return out;
}
