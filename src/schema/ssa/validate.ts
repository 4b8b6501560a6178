import { isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { goTypeName, smdSharpV, smdV } from '../gofmt.js';
import { resolve, type Atom, type ListDef, type MapDef, type ScalarKind, type TypeRef } from '../types.js';
import { associativeItemKey, fieldElement, indexElement } from './keys.js';

/** One structured-merge-diff validation error: the path (`.spec.replicas`) and the message. */
export interface SmdError {
  readonly path: string;
  readonly message: string;
}

/** SMD's `ValidationErrors.Error()`: one error as `path: message`, several as an indented list. */
export function formatSmdErrors(errors: readonly SmdError[]): string {
  const one = (e: SmdError) => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errors.length === 1) return one(errors[0]);
  return ['errors:', ...errors.map((e) => '  ' + one(e))].join('\n');
}

export type Part = 'map' | 'scalar' | 'list';

/**
 * SMD's deduceAtom + handleAtom: the part of a (possibly untyped) atom a value is handled as. A value
 * that matches no part (null, or the wrong kind) falls to the first of map, scalar, list the atom has.
 */
export function partFor(atom: Atom, v: JsonValue | undefined): Part | undefined {
  if (v !== undefined && v !== null) {
    if (typeof v !== 'object') {
      if (atom.scalar) return 'scalar';
    } else if (Array.isArray(v)) {
      if (atom.list) return 'list';
    } else if (atom.map) return 'map';
  }
  return atom.map ? 'map' : atom.scalar ? 'scalar' : atom.list ? 'list' : undefined;
}

/** SMD `validateScalar` (null is valid for every scalar type). */
export function scalarError(kind: ScalarKind, v: JsonValue, prefix = ''): string | undefined {
  if (v === null) return undefined;
  switch (kind) {
    case 'integer':
    case 'number':
      return typeof v === 'number' ? undefined : `${prefix}expected numeric (int or float), got ${goTypeName(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `${prefix}expected string, got ${smdSharpV(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `${prefix}expected boolean, got ${smdV(v)}`;
    case 'untyped':
      return typeof v !== 'object' ? undefined : `${prefix}expected any scalar, got ${smdV(v)}`;
  }
}

/**
 * What `TypeConverter.ObjectToTyped` checks: every key declared in the schema, scalars of the right kind,
 * list-map items with their keys, no duplicate keys unless `allowDuplicates` (the live object is converted
 * with SMD's AllowDuplicates, the patch is not).
 */
export function validateTyped(value: JsonValue, type: TypeRef, allowDuplicates: boolean): SmdError[] {
  const errors: SmdError[] = [];
  new Validator(errors, allowDuplicates).value(value, type, '');
  return errors;
}

class Validator {
  constructor(
    private readonly errors: SmdError[],
    private readonly allowDuplicates: boolean,
  ) {}

  value(v: JsonValue, type: TypeRef, path: string): void {
    const atom = resolve(type);
    switch (partFor(atom, v)) {
      case 'map':
        return this.map(atom.map!, v, path);
      case 'scalar': {
        const err = scalarError(atom.scalar!, v);
        if (err) this.errors.push({ path, message: err });
        return;
      }
      case 'list':
        return this.list(atom.list!, v, path);
      default:
        this.errors.push({ path, message: 'schema error: invalid atom: inlined' });
    }
  }

  private map(def: MapDef, v: JsonValue, path: string): void {
    if (v === null) return;
    if (!isJsonObject(v)) {
      this.errors.push({ path, message: `expected map, got ${smdV(v)}` });
      return;
    }
    for (const key of Object.keys(v)) {
      const field = def.fields?.get(key);
      const type = field ? field.type : def.elem;
      const childPath = path + fieldElement(key);
      if (!type) {
        // SMD stops looking at this map after the first undeclared field.
        this.errors.push({ path: childPath, message: 'field not declared in schema' });
        return;
      }
      this.value((v as JsonObject)[key], type, childPath);
    }
  }

  private list(def: ListDef, v: JsonValue, path: string): void {
    if (v === null) return;
    if (!Array.isArray(v)) {
      this.errors.push({ path, message: `expected list, got ${smdV(v)}` });
      return;
    }
    const associative = def.listType !== 'atomic';
    const seen = associative ? new Set<string>() : undefined;
    for (let i = 0; i < v.length; i++) {
      let pe: string;
      if (seen) {
        const key = associativeItemKey(def, v[i]);
        if (key.error !== undefined) {
          // SMD gives up on the rest of the list: without a key it cannot name the element.
          this.errors.push({ path, message: `element ${i}: ${key.error}` });
          return;
        }
        pe = key.pe;
        if (seen.has(pe) && !this.allowDuplicates) this.errors.push({ path, message: `duplicate entries for key ${pe}` });
        seen.add(pe);
      } else {
        pe = indexElement(i);
      }
      this.value(v[i], def.elem, path + pe);
    }
  }
}
