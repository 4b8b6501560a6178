import { exactInteger, isFloatLiteral, isJsonObject, isOwnRead, type JsonValue } from '../json/index.js';
import { ERR_FORMAT_WRONG, quantityParseError } from '../k8s/index.js';
import { rfc3339Error, strconvQuote } from '../go/index.js';
import { goLeaf, type GoLeaf } from './go-fields.js';
import { decodeGoBase64 } from './go-base64.js';
import { isMicroTime, microTimeError } from './micro-time.js';
import { ItemPairing, unchanged } from './unchanged.js';
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

/**
 * Decodes `obj` against a built-in kind's type the way the API server's strict JSON decoder does
 * (case-sensitive field names, unknown fields rejected, Go types checked), and returns the first error or
 * undefined. Mirrors encoding/json's order: an error from a custom decoder (Quantity, Time, IntOrString)
 * wins, then the first type mismatch, then every unknown field (`strict decoding error: unknown field "…"`).
 * Meant for built-in kinds; for CRDs the API server keeps the object unstructured and checks nothing here.
 *
 * `accepted` is a document the API server already holds as this type: the object it sent (its own, newer
 * schema may know fields ours does not) or an earlier result that decoded. Only what `obj` changed
 * relative to it is judged: an object or array identical (`===`) to the one at the same place in
 * `accepted` is not looked at again (JSON patch results share their untouched subtrees with their
 * input), and a field that `accepted` has at the same place is never reported unknown.
 */
export function strictDecode(type: ObjectType, obj: JsonValue, accepted?: JsonValue): StrictDecodeError | undefined {
  const d = new Decoder();
  d.value(obj, type.root, undefined, undefined, accepted);
  if (d.hardError) return new StrictDecodeError('type', d.hardError);
  if (d.typeError) return new StrictDecodeError('type', d.typeError);
  if (d.unknown.length > 0) {
    return new StrictDecodeError('unknown-fields', 'strict decoding error: ' + d.unknown.map((p) => `unknown field ${strconvQuote(p)}`).join(', '), d.unknown);
  }
  return undefined;
}

function jsonKind(v: JsonValue, integerTarget: boolean, container: object | undefined, key: string | number | undefined): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') {
    if (!integerTarget) return 'number';
    return Number.isInteger(v) && !writtenAsFloat(container, key) ? 'number' : `number ${Number.isInteger(v) ? v.toFixed(1) : String(v)}`;
  }
  return Array.isArray(v) ? 'array' : 'object';
}

/** Whether the number at `container[key]` was written as a float literal (`2.0`), which Go will not decode as an integer. */
function writtenAsFloat(container: object | undefined, key: string | number | undefined): boolean {
  return container !== undefined && key !== undefined && isFloatLiteral(container, key);
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

type GoInt = 'int32' | 'int64';

const INT64: readonly [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];

/**
 * Whether the integer `v` does not fit the Go field. `exact`: its exact value, when the document holds one
 * past ±2^53 (src/json marks every int64 literal); a number past ±2^53 without one was written outside
 * int64 (or comes from a double, which Go's ParseInt refuses as well).
 */
function overflows(v: number, exact: bigint | undefined, int: GoInt): boolean {
  if (Number.isSafeInteger(v)) return int === 'int32' && (v < -2147483648 || v > 2147483647);
  if (exact === undefined || int === 'int32') return true;
  return exact < INT64[0] || exact > INT64[1];
}

const FIELD = 0;
const MAP_KEY = 1;
const INDEX = 2;

/**
 * Walks the value against the type. The path of the walk is kept in three parallel stacks (key, kind of
 * step, type id of the struct declaring a field) and rendered only when an error needs it.
 */
class Decoder {
  hardError: string | undefined;
  typeError: string | undefined;
  readonly unknown: string[] = [];
  private readonly keys: (string | number)[] = [];
  private readonly kinds: number[] = [];
  private readonly structs: (string | undefined)[] = [];

  private push(key: string | number, kind: number, struct: string | undefined): void {
    this.keys.push(key);
    this.kinds.push(kind);
    this.structs.push(struct);
  }

  private pop(): void {
    this.keys.pop();
    this.kinds.pop();
    this.structs.pop();
  }

  /** The strict decoder's path: `spec.containers[1].ports[0].containerPortZ`. */
  private strictPath(extra: string): string {
    let out = '';
    for (let i = 0; i < this.keys.length; i++) {
      out += this.kinds[i] === INDEX ? `[${this.keys[i]}]` : out === '' ? String(this.keys[i]) : `.${this.keys[i]}`;
    }
    return out === '' ? extra : `${out}.${extra}`;
  }

  /** `goName`: the Go type when the schema's does not say it (`int32`, `[]uint8`); `what`: the JSON value as Go names it. */
  private mismatch(v: JsonValue, ref: TypeRef, integerTarget: boolean, container: object | undefined, key: string | number | undefined, goName?: string, what = jsonKind(v, integerTarget, container, key)): void {
    if (this.typeError !== undefined) return;
    // encoding/json's error context: the innermost struct and the JSON field names from the root.
    let struct: string | undefined;
    const fields: string[] = [];
    for (let i = 0; i < this.keys.length; i++) {
      if (this.kinds[i] !== FIELD) continue;
      struct = this.structs[i];
      fields.push(String(this.keys[i]));
    }
    const into = struct !== undefined ? `Go struct field ${goStructName(struct).split('.')[1]}.${fields.join('.')}` : 'Go value';
    this.typeError = `json: cannot unmarshal ${what} into ${into} of type ${goName ?? goType(ref)}`;
  }

  /** `base`: what `accepted` holds at this place, if anything (see strictDecode). */
  /** `leaf`: what the Go type of the values at this place is when the schema does not say (go-fields.ts). */
  value(v: JsonValue, ref: TypeRef, container: object | undefined, key: string | number | undefined, base: JsonValue | undefined, leaf?: GoLeaf): void {
    if (v === null) return;
    // Identical containers were decoded before (numbers are not skipped: a float literal's mark lives on
    // its container, so an equal number in a new container may still be a `2.0` the patch wrote).
    if (unchanged(v, base)) return;
    const atom = resolve(ref);
    if (atom.scalar) {
      // Free-form JSON (RawExtension, apiextensions JSON, FieldsV1): anything goes.
      if (atom.scalar === 'untyped' && atom.list && atom.map) return;
      return this.scalar(atom, v, ref, container, key, leaf);
    }
    if (atom.list) {
      if (!Array.isArray(v)) return this.mismatch(v, ref, false, container, key);
      const pairs = ItemPairing.of(base, v.length);
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        const itemBase = pairs?.baseFor(item, i);
        if (unchanged(item, itemBase)) continue;
        this.push(i, INDEX, undefined);
        this.value(item, atom.list.elem, v, i, itemBase, leaf);
        this.pop();
        if (this.hardError !== undefined) return;
      }
      return;
    }
    if (atom.map) {
      if (!isJsonObject(v)) return this.mismatch(v, ref, false, container, key);
      const def = atom.map;
      const baseMap = isJsonObject(base) ? base : undefined;
      for (const k in v) {
        const child = v[k];
        let childBase: JsonValue | undefined;
        if (baseMap !== undefined) {
          childBase = baseMap[k];
          // An unchanged container, string or boolean decodes as it did (not a number: see above). A JSON
          // value never equals what an object inherits, so no own-property test is needed for this.
          if (child === childBase && typeof child !== 'number') continue;
          if (!isOwnRead(baseMap, k, childBase)) childBase = undefined;
        }
        const field = def.fields?.get(k);
        const childType = field ? field.type : def.elem;
        if (!childType) {
          // A field the API server sent is one its schema knows, even when ours does not.
          if (childBase === undefined) this.unknown.push(this.strictPath(k));
          continue;
        }
        if (field) this.push(k, FIELD, def.name);
        else this.push(k, MAP_KEY, undefined);
        // A struct field's own Go type; a map's values share the map's.
        this.value(child, childType, v, k, childBase, field ? (field.go !== undefined ? goLeaf(field.go) : undefined) : leaf);
        this.pop();
        if (this.hardError !== undefined) return;
      }
    }
  }

  private scalar(atom: Atom, v: JsonValue, ref: TypeRef, container: object | undefined, key: string | number | undefined, leaf: GoLeaf | undefined): void {
    switch (atom.scalar) {
      case 'string':
        if (typeof v !== 'string') this.mismatch(v, ref, false, container, key, leaf === 'bytes' ? '[]uint8' : undefined);
        else if (leaf === 'bytes' && this.typeError === undefined) {
          // encoding/json saves base64's error like a type mismatch: the first one in the document wins.
          const d = decodeGoBase64(v);
          if (!d.ok) this.typeError = d.message;
        }
        return;
      case 'boolean':
        if (typeof v !== 'boolean') this.mismatch(v, ref, false, container, key);
        return;
      case 'number':
        if (typeof v !== 'number') this.mismatch(v, ref, false, container, key);
        return;
      case 'integer': {
        const int = leaf === 'bytes' ? undefined : leaf;
        if (typeof v !== 'number' || !Number.isInteger(v) || writtenAsFloat(container, key)) {
          this.mismatch(v, ref, true, container, key, int);
        } else if (int !== undefined) {
          // encoding/json: strconv.ParseInt(literal, 10, 64), then reflect's OverflowInt for the field's size.
          const exact = container !== undefined && key !== undefined ? exactInteger(container, key) : undefined;
          if (overflows(v, exact, int)) this.mismatch(v, ref, true, container, key, int, `number ${exact ?? BigInt(v)}`);
        }
        return;
      }
      default:
        // A MicroTime field (the struct declaring the field is on top of the stack) decodes as RFC3339Micro.
        if (atom.format === 'date-time' && typeof v === 'string' && isMicroTime(this.structs[this.structs.length - 1], key)) {
          this.hardError ??= microTimeError(v);
          return;
        }
        this.hardError ??= customDecodeError(atom.format, v, container, key);
    }
  }
}

/** The errors of the Go types with their own UnmarshalJSON (Quantity, Time/MicroTime, IntOrString). */
export function customDecodeError(format: string | undefined, v: JsonValue, container: object | undefined, key: string | number | undefined): string | undefined {
  switch (format) {
    case 'quantity': {
      if (typeof v === 'number') return undefined;
      if (typeof v !== 'string') return ERR_FORMAT_WRONG;
      return quantityParseError(v.trim());
    }
    case 'date-time':
      if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v, false, undefined, undefined)} into Go value of type string`;
      return rfc3339Error(v);
    case 'int-or-string': {
      if (typeof v === 'string') return undefined;
      if (typeof v === 'number' && Number.isInteger(v) && !writtenAsFloat(container, key)) {
        if (v >= -2147483648 && v <= 2147483647) return undefined;
        // encoding/json's OverflowInt: the literal is in the message (`number 3000000000`), as JSON writes it.
        const exact = container !== undefined && key !== undefined ? exactInteger(container, key) : undefined;
        return `json: cannot unmarshal number ${exact ?? (Math.abs(v) < 1e21 ? BigInt(v) : v)} into Go value of type int32`;
      }
      return `json: cannot unmarshal ${jsonKind(v, true, container, key)} into Go value of type int32`;
    }
    default:
      return typeof v === 'object' ? `json: cannot unmarshal ${Array.isArray(v) ? 'array' : 'object'} into Go value of type string` : undefined;
  }
}
