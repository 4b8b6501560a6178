import { isJsonObject, isOwnRead, type JsonObject, type JsonValue } from '../../json/index.js';
import { GoNative } from '../../go/index.js';
import { goTypeName, smdSharpV, smdV } from '../gofmt.js';
import { resolve, type Atom, type ListDef, type MapDef, type ScalarKind, type TypeRef } from '../types.js';
import { ItemPairing, unchanged } from '../unchanged.js';
import { ItemStep, itemIdentity, NEEDS_PATH_ELEMENT, renderPath, type PathStep } from './keys.js';

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
function partFor(atom: Atom, v: JsonValue | undefined): Part | undefined {
  return matchingPart(atom, v) ?? firstPart(atom);
}

/** SMD deduceAtom: the part of the atom the value's own kind selects, if the atom has it. */
export function matchingPart(atom: Atom, v: JsonValue | undefined): Part | undefined {
  if (v === undefined || v === null || v instanceof GoNative) return undefined;
  if (typeof v !== 'object') return atom.scalar ? 'scalar' : undefined;
  if (Array.isArray(v)) return atom.list ? 'list' : undefined;
  return atom.map ? 'map' : undefined;
}

/** SMD handleAtom's preference when the value selects nothing: map, then scalar, then list. */
export function firstPart(atom: Atom): Part | undefined {
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
 *
 * `valid` (only with `allowDuplicates`): a value of the same type known to pass this check (or vouched for,
 * like the object the API server sent), which `value` was derived from by copy-on-write edits; values
 * identical (`===`) to the ones at the same place in it are not looked at again, and a field it has
 * counts as declared. Without duplicate detection no check spans list items, so a skipped item cannot
 * hide an error of another.
 */
export function validateTyped(value: JsonValue, type: TypeRef, allowDuplicates: boolean, valid?: JsonValue): SmdError[] {
  const errors: SmdError[] = [];
  new Validator(errors, allowDuplicates).value(value, type, allowDuplicates ? valid : undefined);
  return errors;
}

class Validator {
  private readonly steps: PathStep[] = [];
  constructor(
    private readonly errors: SmdError[],
    private readonly allowDuplicates: boolean,
  ) {}

  private error(message: string): void {
    this.errors.push({ path: renderPath(this.steps), message });
  }

  /** `base`: what the known-valid value holds at this place, if anything. */
  value(v: JsonValue, type: TypeRef, base: JsonValue | undefined): void {
    const atom = resolve(type);
    if (typeof v !== 'object' && atom.scalar && atom.scalar !== 'untyped') {
      // fast path for the common typed scalar
      const ok = atom.scalar === 'string' ? typeof v === 'string' : atom.scalar === 'boolean' ? typeof v === 'boolean' : typeof v === 'number';
      if (!ok) this.error(scalarError(atom.scalar, v)!);
      return;
    }
    if (unchanged(v, base)) return;
    switch (partFor(atom, v)) {
      case 'map':
        return this.map(atom.map!, v, base);
      case 'scalar': {
        const err = scalarError(atom.scalar!, v);
        if (err) this.error(err);
        return;
      }
      case 'list':
        return this.list(atom.list!, v, base);
      default:
        this.error('schema error: invalid atom: inlined');
    }
  }

  private map(def: MapDef, v: JsonValue, base: JsonValue | undefined): void {
    if (v === null) return;
    if (!isJsonObject(v) || v instanceof GoNative) {
      this.error(`expected map, got ${smdV(v)}`);
      return;
    }
    const fields = def.fields;
    const baseMap = isJsonObject(base) ? base : undefined;
    for (const key in v) {
      const child = (v as JsonObject)[key];
      let childBase: JsonValue | undefined;
      if (baseMap !== undefined) {
        childBase = baseMap[key];
        // What the checked version holds unchanged needs no second look (a JSON value never equals
        // what an object inherits, so this needs no own-property test).
        if (child === childBase) continue;
        if (!isOwnRead(baseMap, key, childBase)) childBase = undefined;
      }
      const field = fields?.get(key);
      const type = field ? field.type : def.elem;
      // A field the checked version has counts as declared (the object the API server sent may carry
      // fields of a newer schema than ours); its value cannot be checked here.
      if (!type && childBase !== undefined) continue;
      this.steps.push(key);
      if (!type) {
        // SMD stops looking at this map after the first undeclared field.
        this.error('field not declared in schema');
        this.steps.pop();
        return;
      }
      this.value(child, type, childBase);
      this.steps.pop();
    }
  }

  private list(def: ListDef, v: JsonValue, base: JsonValue | undefined): void {
    if (v === null) return;
    if (!Array.isArray(v)) {
      this.error(`expected list, got ${smdV(v)}`);
      return;
    }
    const pairs = ItemPairing.of(base, v.length);
    if (def.listType === 'atomic') {
      for (let i = 0; i < v.length; i++) {
        const itemBase = pairs?.baseFor(v[i], i);
        if (unchanged(v[i], itemBase)) continue;
        this.steps.push(i);
        this.value(v[i], def.elem, itemBase);
        this.steps.pop();
      }
      return;
    }
    // Duplicates are looked for only in a patch; the key values themselves are the identities unless
    // some key needs its path element text (see itemIdentity).
    const seen = this.allowDuplicates ? undefined : new Set<unknown>();
    let byText = false;
    if (seen) for (const item of v) if (itemIdentity(def, item) === NEEDS_PATH_ELEMENT) byText = true;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      const itemBase = pairs?.baseFor(item, i);
      // An item known valid has its key; with duplicates allowed (the only case with a base) nothing
      // else about it matters to the other items.
      if (unchanged(item, itemBase)) continue;
      const id = itemIdentity(def, item);
      if (id !== null && typeof id === 'object') {
        // SMD gives up on the rest of the list: without a key it cannot name the element.
        this.error(`element ${i}: ${id.error}`);
        return;
      }
      const step = new ItemStep(def, item);
      if (seen) {
        const key = byText ? step.pe : id;
        if (seen.has(key)) this.error(`duplicate entries for key ${step.pe}`);
        seen.add(key);
      }
      this.steps.push(step);
      this.value(item, def.elem, itemBase);
      this.steps.pop();
    }
  }
}
