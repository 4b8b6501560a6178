import { isFloatLiteral, isJsonObject, type JsonValue } from '../json/index.js';
import { goQuote } from './gofmt.js';
import { NamedRef, resolve, type Atom, type ObjectType, type TypeRef } from './types.js';

/**
 * Why a JSON-patched object of a built-in kind would not decode back into its Go type (kube-apiserver
 * decodes the result of a MutatingAdmissionPolicy JSONPatch strictly; spec/map.md §8.3). `message` is the
 * decoder's text; the API server answers it as `Internal error occurred: <message>` (HTTP 500).
 */
export class StrictDecodeError extends Error {
  override name = 'StrictDecodeError';
  constructor(
    /** unknown-fields: keys the type does not declare; type: a value of the wrong JSON type or format. */
    readonly reason: 'unknown-fields' | 'type',
    message: string,
    /** For unknown-fields: each field's path, e.g. `spec.containers[1].ports[0].containerPortZ`. */
    readonly paths: readonly string[] = [],
  ) {
    super(message);
  }
}

const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIX = "unable to parse quantity's suffix";
const QUANTITY_SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Decodes `obj` against a built-in kind's type the way the API server's strict JSON decoder does
 * (case-sensitive field names, unknown fields rejected, Go types checked), and returns the first error or
 * undefined. Mirrors encoding/json's order: an error from a custom decoder (Quantity, Time, IntOrString)
 * wins, then the first type mismatch, then every unknown field (`strict decoding error: unknown field "…"`).
 * Meant for built-in kinds; for CRDs the API server keeps the object unstructured and checks nothing here.
 */
export function strictDecode(type: ObjectType, obj: JsonValue): StrictDecodeError | undefined {
  const d = new Decoder();
  d.value(obj, type.root, '', [], undefined, undefined);
  if (d.hardError) return new StrictDecodeError('type', d.hardError);
  if (d.typeError) return new StrictDecodeError('type', d.typeError);
  if (d.unknown.length > 0) {
    return new StrictDecodeError('unknown-fields', 'strict decoding error: ' + d.unknown.map((p) => `unknown field ${goQuote(p)}`).join(', '), d.unknown);
  }
  return undefined;
}

function jsonKind(v: JsonValue, integerTarget: boolean, container: object | undefined, key: string | number | undefined): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') {
    if (!integerTarget) return 'number';
    const floatText = container !== undefined && key !== undefined && isFloatLiteral(container, key);
    return Number.isInteger(v) && !floatText ? 'number' : `number ${Number.isInteger(v) ? v.toFixed(1) : String(v)}`;
  }
  return Array.isArray(v) ? 'array' : 'object';
}

/** Go type name of a schema type, as encoding/json prints it (`[]v1.Container`, `map[string]string`). */
function goType(ref: TypeRef): string {
  if (ref instanceof NamedRef) return goStructName(ref.id);
  const atom = resolve(ref);
  if (atom.map?.name) return goStructName(atom.map.name);
  if (atom.scalar && !atom.list) return goScalar(atom);
  if (atom.list && !atom.scalar) return '[]' + goType(atom.list.elem);
  if (atom.map && !atom.scalar) return 'map[string]' + (atom.map.elem ? goType(atom.map.elem) : 'interface {}');
  return 'interface {}';
}

function goScalar(atom: Atom): string {
  switch (atom.scalar) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    // The table does not say int32 or int64; Go's message names one of them.
    case 'integer':
      return 'int';
    default:
      return atom.format === 'quantity' ? 'resource.Quantity' : atom.format === 'date-time' ? 'v1.Time' : 'intstr.IntOrString';
  }
}

/** `io.k8s.api.core.v1.PodSpec` -> `v1.PodSpec` (Go package name + type name). */
function goStructName(id: string): string {
  const parts = id.split('.');
  return parts.slice(-2).join('.');
}

class Decoder {
  hardError: string | undefined;
  typeError: string | undefined;
  readonly unknown: string[] = [];

  /**
   * @param path the strict-error path (`spec.containers[1].image`)
   * @param fields JSON field names from the root without indices (Go's error context `Field`)
   * @param struct Go name of the innermost struct whose field is being decoded (error context `Struct`)
   */
  value(v: JsonValue, ref: TypeRef, path: string, fields: string[], struct: string | undefined, at: [object, string | number] | undefined): void {
    if (this.hardError !== undefined || v === null) return;
    const atom = resolve(ref);
    const mismatch = (integerTarget = false) => {
      if (this.typeError !== undefined) return;
      const what = jsonKind(v, integerTarget, at?.[0], at?.[1]);
      const into = struct !== undefined ? `Go struct field ${struct}.${fields.join('.')}` : 'Go value';
      this.typeError = `json: cannot unmarshal ${what} into ${into} of type ${goType(ref)}`;
    };
    // Free-form JSON (RawExtension, apiextensions JSON, FieldsV1): anything goes.
    if (atom.scalar === 'untyped' && atom.list && atom.map) return;
    if (atom.scalar) return this.scalar(atom, v, mismatch, at);
    if (atom.list) {
      if (!Array.isArray(v)) return mismatch();
      for (let i = 0; i < v.length; i++) this.value(v[i], atom.list.elem, `${path}[${i}]`, fields, struct, [v, i]);
      return;
    }
    if (atom.map) {
      if (!isJsonObject(v)) return mismatch();
      const def = atom.map;
      const structName = def.fields ? (def.name ? goStructName(def.name).split('.')[1] : struct) : struct;
      for (const key of Object.keys(v)) {
        const field = def.fields?.get(key);
        const childType = field ? field.type : def.elem;
        const childPath = path ? `${path}.${key}` : key;
        if (!childType) {
          this.unknown.push(childPath);
          continue;
        }
        // A map value adds no field name to Go's error context; a struct field does.
        const childFields = field ? [...fields, key] : fields;
        this.value(v[key], childType, childPath, childFields, field ? structName : struct, [v, key]);
        if (this.hardError !== undefined) return;
      }
    }
  }

  private scalar(atom: Atom, v: JsonValue, mismatch: (integerTarget?: boolean) => void, at: [object, string | number] | undefined): void {
    switch (atom.scalar) {
      case 'string':
        if (typeof v !== 'string') mismatch();
        return;
      case 'boolean':
        if (typeof v !== 'boolean') mismatch();
        return;
      case 'number':
        if (typeof v !== 'number') mismatch();
        return;
      case 'integer': {
        const floatText = at !== undefined && isFloatLiteral(at[0], at[1]);
        if (typeof v !== 'number' || !Number.isInteger(v) || floatText) mismatch(true);
        return;
      }
      default:
        this.hardError ??= customDecodeError(atom.format, v, at);
    }
  }
}

/** The errors of the Go types with their own UnmarshalJSON (Quantity, Time/MicroTime, IntOrString). */
function customDecodeError(format: string | undefined, v: JsonValue, at: [object, string | number] | undefined): string | undefined {
  switch (format) {
    case 'quantity': {
      if (typeof v === 'number') return undefined;
      if (typeof v !== 'string') return QUANTITY_FORMAT;
      return quantityError(v.trim());
    }
    case 'date-time':
      if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v, false, undefined, undefined)} into Go value of type string`;
      return RFC3339.test(v) ? undefined : `parsing time ${goQuote(v)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 date-time`;
    case 'int-or-string': {
      if (typeof v === 'string') return undefined;
      const floatText = at !== undefined && isFloatLiteral(at[0], at[1]);
      if (typeof v === 'number' && Number.isInteger(v) && !floatText && v >= -2147483648 && v <= 2147483647) return undefined;
      return `json: cannot unmarshal ${jsonKind(v, true, at?.[0], at?.[1])} into Go value of type int32`;
    }
    default:
      return typeof v === 'object' ? `json: cannot unmarshal ${Array.isArray(v) ? 'array' : 'object'} into Go value of type string` : undefined;
  }
}

/** resource.ParseQuantity's verdict on a string. */
function quantityError(s: string): string | undefined {
  const m = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)/.exec(s);
  if (!m) return QUANTITY_FORMAT;
  const suffix = s.slice(m[0].length);
  if (QUANTITY_SUFFIXES.has(suffix) || /^[eE][+-]?[0-9]+$/.test(suffix)) return undefined;
  return /^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix) ? QUANTITY_SUFFIX : QUANTITY_FORMAT;
}
