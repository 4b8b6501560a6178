import { getOwn, isJsonObject, setOwn, type JsonArray, type JsonObject, type JsonValue } from '../../json/index.js';
import { SchemaRegistry } from '../registry.js';
import { resolve, type FieldDef, type TypeRef } from '../types.js';

/** A strategic merge that cannot be done (mismatched node kinds, unknown `$patch`, list items without a key). */
export class StrategicMergeError extends Error {
  override name = 'StrategicMergeError';
}

export type StrategicMergeResult = { ok: true; value: JsonObject } | { ok: false; error: StrategicMergeError };

export interface StrategicMergeOptions {
  /** Where built-in kinds' patch strategies come from (default: SchemaRegistry.builtin()). */
  registry?: SchemaRegistry;
  /**
   * kyaml's InferAssociativeLists: a list the schema says nothing about is merged by `name` when every item
   * of a side has one (recent kyaml infers only `name`). Off by default because kustomize's
   * patchstrategicmerge filter, which Kyverno uses, leaves it off: such lists (every list of a custom
   * resource) are replaced whole.
   */
  inferListMergeKey?: boolean;
}

const DIRECTIVE = '$patch';

/** What a walk of one node gives: a value, or DELETE (the field or item goes away). */
const DELETE = Symbol('delete');
type Walked = JsonValue | undefined | typeof DELETE;

/** The schema facts of one node: its type, and the field that holds it (patch strategy, merge key). */
interface Node {
  type?: TypeRef;
  field?: FieldDef;
}

/**
 * Kyverno's `patchStrategicMerge` merge step: kustomize kyaml `merge2` with list increase direction
 * *prepend* (what the patchstrategicmerge filter sets), after anchors were resolved into a plain overlay.
 *
 * - maps merge recursively; `null` in the overlay deletes the key (and null values met while walking the
 *   resource disappear too, as kyaml drops them); `$patch: delete | replace | merge` on a map;
 * - lists whose field has patch strategy `merge` are merged by their merge key(s) (the list-map keys when the
 *   schema has them, else `patchMergeKey`; matching uses only the keys an overlay item sets), or, without a
 *   key, as a union of scalars; items the overlay names come first in overlay order, then the untouched
 *   resource items in their order; an overlay item `{$patch: replace}` drops the resource's items;
 * - every other list (no strategy, `retainKeys`/`replace`, unknown kinds, custom resources) is replaced.
 *
 * Never modifies its inputs; the result may share untouched scalars and replaced lists with them.
 */
export function strategicMerge(resource: JsonValue, overlay: JsonValue, options: StrategicMergeOptions = {}): StrategicMergeResult {
  if (!isJsonObject(resource)) return { ok: false, error: new StrategicMergeError('strategic merge: the resource is not an object') };
  if (!isJsonObject(overlay)) return { ok: false, error: new StrategicMergeError('strategic merge: the patch is not an object') };
  const registry = options.registry ?? SchemaRegistry.builtin();
  const root = rootType(registry, resource) ?? rootType(registry, overlay);
  try {
    const out = new Merger(options.inferListMergeKey ?? false).walk(resource, overlay, { type: root }, '');
    if (!isJsonObject(out)) throw new StrategicMergeError('strategic merge: the patch deletes the whole resource');
    return { ok: true, value: out };
  } catch (err) {
    if (err instanceof StrategicMergeError) return { ok: false, error: err };
    throw err;
  }
}

/** Only built-in kinds have patch strategies (kyaml knows nothing of CRDs). */
function rootType(registry: SchemaRegistry, obj: JsonObject): TypeRef | undefined {
  const apiVersion = getOwn(obj, 'apiVersion');
  const kind = getOwn(obj, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const t = registry.lookup(apiVersion, kind);
  return t?.source === 'builtin' ? t.root : undefined;
}

type Kind = 'map' | 'list' | 'scalar';

function kindOf(v: JsonValue | undefined): Kind | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'map' : 'scalar';
}

const KIND_NAMES: Record<Kind, string> = { map: 'MappingNode', list: 'SequenceNode', scalar: 'ScalarNode' };

class Merger {
  constructor(private readonly infer: boolean) {}

  walk(dest: JsonValue | undefined, origin: JsonValue | undefined, node: Node, path: string): Walked {
    const kind = kindOf(dest) ?? kindOf(origin);
    for (const side of [dest, origin]) {
      const k = kindOf(side);
      if (k !== undefined && kind !== undefined && k !== kind) {
        throw new StrategicMergeError(`strategic merge: wrong node kind at ${path || '.'}: expected ${KIND_NAMES[kind]} but got ${KIND_NAMES[k]}`);
      }
    }
    switch (kind) {
      case 'list':
        return this.list(dest as JsonArray | null | undefined, origin as JsonArray | null | undefined, node, path);
      case 'scalar':
        return origin !== undefined ? origin : dest;
      default:
        return this.map(dest as JsonObject | null | undefined, origin as JsonObject | null | undefined, node, path);
    }
  }

  private map(dest: JsonObject | null | undefined, origin: JsonObject | null | undefined, node: Node, path: string): Walked {
    let base: JsonObject | null | undefined;
    const directive = origin ? smpDirective(origin, path) : 'merge';
    const patch = origin && directive !== undefined && Object.prototype.hasOwnProperty.call(origin, DIRECTIVE) ? withoutDirective(origin) : origin;
    if (dest === undefined || dest === null) {
      if (directive === 'delete') return DELETE;
      base = patch;
    } else if (origin === null) {
      return DELETE;
    } else if (directive === 'delete') {
      return DELETE;
    } else {
      base = directive === 'replace' ? patch : dest;
    }
    if (base === undefined || base === null) return base;

    const names = new Set(Object.keys(base));
    if (patch) for (const k of Object.keys(patch)) names.add(k);
    const results = new Map<string, Walked>();
    for (const name of [...names].sort()) {
      const child = this.childNode(node, name);
      const dv = getOwn(base, name);
      const ov = patch ? getOwn(patch, name) : undefined;
      results.set(name, this.walk(dv, base === patch ? dv : ov, child, `${path}.${name}`));
    }
    const out: JsonObject = {};
    const put = (k: string) => {
      const r = results.get(k);
      if (r !== undefined && r !== null && r !== DELETE) setOwn(out, k, r);
    };
    for (const k of Object.keys(base)) put(k);
    for (const k of [...names].sort()) if (!Object.prototype.hasOwnProperty.call(base, k)) put(k);
    return out;
  }

  private childNode(node: Node, name: string): Node {
    if (!node.type) return {};
    const def = resolve(node.type).map;
    if (!def) return {};
    const field = def.fields?.get(name);
    if (field) return { type: field.type, field };
    return def.elem ? { type: def.elem } : {};
  }

  /** kyaml's PatchStrategyAndKeyList + IsAssociative, or inference by `name` where there is no schema. */
  private listKeys(node: Node, dest: JsonArray | null | undefined, origin: JsonArray | null | undefined, path: string): string[] | undefined {
    const listDef = node.type ? resolve(node.type).list : undefined;
    if (node.type && listDef) {
      const strategy = node.field?.patchStrategy ?? '';
      if (!strategy.split(',').includes('merge')) return undefined;
      if (listDef.listType === 'map' && listDef.keys.length > 0) return [...listDef.keys];
      return node.field?.patchMergeKey ? [node.field.patchMergeKey] : [];
    }
    if (!this.infer || node.type) return undefined;
    let key: string | undefined;
    for (const side of [dest, origin]) {
      if (!side || side.length === 0) continue;
      const k = side.every((item) => isJsonObject(item) && nonEmpty(getOwn(item, 'name'))) ? 'name' : '';
      if (key !== undefined && key !== k) throw new StrategicMergeError(`strategic merge: conflicting merge keys [${key},${k}] for field ${path.slice(1)}`);
      key = k;
    }
    return key ? [key] : undefined;
  }

  private list(dest: JsonArray | null | undefined, origin: JsonArray | null | undefined, node: Node, path: string): Walked {
    const keys = this.listKeys(node, dest, origin, path);
    if (keys === undefined) return origin !== undefined ? origin : dest; // replaced whole (null clears)
    if (dest === undefined || dest === null) {
      if (origin === undefined || origin === null) return origin;
      dest = origin;
    } else if (origin === null) {
      return DELETE;
    }
    const elem: Node = { type: node.type ? resolve(node.type).list?.elem : undefined };
    if (keys.length === 0) return primitiveUnion(dest, origin ?? []);
    return this.keyedList(dest, origin ?? [], keys, elem, path);
  }

  private keyedList(dest: JsonArray, origin: JsonArray, keys: string[], elem: Node, path: string): Walked {
    const replace = origin.some(isReplaceDirective);
    const patchItems = origin.filter((item) => !isReplaceDirective(item));
    const tuples: string[][] = [];
    const seen = new Set<string>();
    patchItems.forEach((item, i) => {
      const t = keyTuple(item, keys);
      if (!t) throw new StrategicMergeError(`strategic merge: ${path}[${i}]: list item has no merge key (${keys.join(', ')})`);
      const id = JSON.stringify(t);
      if (!seen.has(id)) tuples.push(t), seen.add(id);
    });
    const live = replace ? [] : dest;
    const keyless: JsonValue[] = [];
    for (const item of live) {
      const t = keyTuple(item, keys);
      if (!t) {
        keyless.push(item);
        continue;
      }
      const id = JSON.stringify(t);
      if (!seen.has(id)) tuples.push(t), seen.add(id);
    }

    const remaining = live.filter((item) => keyTuple(item, keys) !== undefined);
    // kyaml merges into the resource's item nodes in place; a later tuple that finds the same item sees the merge.
    const merged = new Map<JsonValue, JsonValue>();
    const out: JsonValue[] = [];
    for (const tuple of tuples) {
      const valid = validKeys(keys, tuple);
      const found = remaining.find((item) => matches(item, valid));
      const d = found === undefined ? undefined : (merged.get(found) ?? found);
      const o = patchItems.find((item) => matches(item, valid));
      const v = d === undefined && o === undefined ? undefined : this.walk(d, o, elem, `${path}[${tuple.filter(Boolean).join(',')}]`);
      if (v === undefined || v === null || v === DELETE || (isJsonObject(v) && Object.keys(v).length === 0)) {
        // kyaml deletes the matching items from the resource's list, so later tuples cannot find them
        for (let i = remaining.length - 1; i >= 0; i--) if (matches(remaining[i], valid)) remaining.splice(i, 1);
        continue;
      }
      if (found !== undefined) merged.set(found, v);
      // kyaml's ElementSetter: replace the items already collected under these keys, else append
      let replaced = false;
      for (let i = 0; i < out.length; i++) {
        if (matches(out[i], valid)) {
          out[i] = v;
          replaced = true;
        }
      }
      if (!replaced) out.push(v);
    }
    return [...out, ...keyless];
  }
}

/** The `$patch` directive of an overlay map: merge (default), replace or delete. */
function smpDirective(origin: JsonObject, path: string): 'merge' | 'replace' | 'delete' {
  const d = getOwn(origin, DIRECTIVE);
  if (d === undefined) return 'merge';
  if (d === 'merge' || d === 'replace' || d === 'delete') return d;
  throw new StrategicMergeError(`strategic merge: ${path || '.'}: unknown patch strategy '${typeof d === 'string' ? d : JSON.stringify(d)}'`);
}

function withoutDirective(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== DIRECTIVE) setOwn(out, k, obj[k]);
  return out;
}

function isReplaceDirective(item: JsonValue): boolean {
  return isJsonObject(item) && Object.keys(item).length === 1 && getOwn(item, DIRECTIVE) === 'replace';
}

/** kyaml compares key values as YAML scalar text: 80 and "80" name the same item. */
function scalarText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? '' : String(v);
}

function nonEmpty(v: JsonValue | undefined): boolean {
  return scalarText(v) !== '';
}

/** The item's key values (empty string where a key is missing), or undefined when it has none at all. */
function keyTuple(item: JsonValue, keys: string[]): string[] | undefined {
  if (!isJsonObject(item)) return undefined;
  const t = keys.map((k) => scalarText(getOwn(item, k)));
  return t.some((v) => v !== '') ? t : undefined;
}

/** kyaml validateKeys: match on the keys the item sets. */
function validKeys(keys: string[], tuple: string[]): [string, string][] {
  return keys.map((k, i): [string, string] => [k, tuple[i]]).filter(([, v]) => v !== '');
}

function matches(item: JsonValue, valid: [string, string][]): boolean {
  return isJsonObject(item) && valid.every(([k, v]) => scalarText(getOwn(item, k)) === v);
}

/** A `merge` list without a merge key (finalizers): overlay values first, then the resource's, once each. */
function primitiveUnion(dest: JsonArray, origin: JsonArray): JsonArray {
  const out: JsonArray = [];
  const seen = new Set<string>();
  for (const v of [...origin, ...dest]) {
    if (v === null) continue;
    const id = typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(v);
  }
  return out;
}
