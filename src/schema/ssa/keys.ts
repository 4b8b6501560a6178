import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { strconvQuote } from '../../go/index.js';
import { GoNative } from '../../go/index.js';
import { goNumber } from '../gofmt.js';
import { resolve, type ListDef } from '../types.js';

/**
 * structured-merge-diff path elements as text: `.field`, `[key="a",port=80]` (keys sorted by name),
 * `[="value"]` for set members, `[3]` for atomic-list indices. For associative lists the text is also the
 * item's identity (strings are quoted, so "80" and 80 differ; SMD compares 1 and 1.0 as equal, as JS does).
 */
function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  // A Go value JSON has no form for (an apply configuration's timestamp): SMD's ToString knows no kind of it.
  if (v instanceof GoNative) return '{{undefined}}';
  if (typeof v === 'string') return strconvQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(valueToString).join(',') + ']';
  return Object.keys(v)
    .sort()
    .map((k) => `${k}=${valueToString(v[k])}`)
    .join('');
}

const fieldElement = (name: string) => '.' + name;
const indexElement = (i: number) => `[${i}]`;

/** The path element of an item of an associative list (set or list-map), or the reason it has none. */
export type ItemKey = { pe: string; error?: undefined } | { pe?: undefined; error: string };

export function associativeItemKey(list: ListDef, item: JsonValue): ItemKey {
  if (list.keys.length === 0) {
    if (item === null) return { error: "associative list without keys has an element that's an explicit null" };
    if (item instanceof GoNative) return { pe: `[=${valueToString(item)}]` };
    if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
    if (typeof item === 'object') return { error: "associative list without keys has an element that's a map type" };
    return { pe: `[=${valueToString(item)}]` };
  }
  if (item === null) return { error: 'associative list with keys may not have a null element' };
  if (!isJsonObject(item) || item instanceof GoNative) return { error: 'associative list with keys may not have non-map elements' };
  if (list.keys.length === 1) {
    // the common case (name, mountPath, uid...): no sorting, no intermediate arrays
    const key = list.keys[0];
    const v = keyValue(list, item, key);
    if (v === undefined) return { error: omitsAllKeys(list) };
    return { pe: `[${key}=${valueToString(v)}]` };
  }
  // A key field the item omits (without a default) is left out of its key: the item is another entry
  // than one that sets it (SMD v6.3.0 "optional map keys"); only an item that omits every key has none.
  const parts: [string, JsonValue][] = [];
  for (const key of list.keys) {
    const v = keyValue(list, item, key);
    if (v !== undefined) parts.push([key, v]);
  }
  if (parts.length === 0) return { error: omitsAllKeys(list) };
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { pe: '[' + parts.map(([k, v]) => `${k}=${valueToString(v)}`).join(',') + ']' };
}

/** An item of an associative list without a usable key: the reason (as associativeItemKey words it). */
export interface KeyError {
  readonly error: string;
}

/** The identity of an item whose key needs the path element text (a map or list as key value, several keys). */
export const NEEDS_PATH_ELEMENT: unique symbol = Symbol('needs path element');

export type ItemIdentity = string | number | boolean | null | typeof NEEDS_PATH_ELEMENT | KeyError;

/**
 * A cheap identity of an associative-list item, equal for two items of one list exactly when their path
 * elements are equal, as long as every item of the lists compared gets a scalar identity: the set member
 * itself, the value of the single key field, or the JSON text of the values of several key fields (JS
 * equality of numbers is SMD's: 1 and 1.0 are one key). Map lookups of a fresh path-element string cost
 * a flattening and a hash each; these cost little. When an item answers NEEDS_PATH_ELEMENT (a key value
 * that is a map or a list), compare the lists by associativeItemKey's text instead.
 */
export function itemIdentity(list: ListDef, item: JsonValue): ItemIdentity {
  const keys = list.keys;
  if (keys.length === 0) {
    if (item instanceof GoNative) return NEEDS_PATH_ELEMENT;
    if (item === null || typeof item === 'object') return { error: associativeItemKey(list, item).error! };
    return item;
  }
  if (!isJsonObject(item) || item instanceof GoNative) return { error: associativeItemKey(list, item).error! };
  if (keys.length === 1) {
    const v = keyValue(list, item, keys[0]);
    if (v === undefined) return { error: omitsAllKeys(list) };
    return v !== null && typeof v === 'object' ? NEEDS_PATH_ELEMENT : v;
  }
  // An omitted key is `{}` in the text: never a scalar key value (an object value takes the text path).
  const values: JsonValue[] = [];
  let composite = false;
  let present = 0;
  for (const key of keys) {
    const v = keyValue(list, item, key);
    if (v === undefined) {
      values.push({});
      continue;
    }
    present++;
    if (v !== null && typeof v === 'object') composite = true;
    values.push(v);
  }
  if (present === 0) return { error: omitsAllKeys(list) };
  return composite ? NEEDS_PATH_ELEMENT : JSON.stringify(values);
}

function keyValue(list: ListDef, item: JsonObject, key: string): JsonValue | undefined {
  const own = getOwn(item, key);
  return own !== undefined ? own : keyDefault(list, key);
}

/** SMD substitutes the schema default of a key field an item omits (ContainerPort.protocol → "TCP"). */
function keyDefault(list: ListDef, key: string): JsonValue | undefined {
  const fields = resolve(list.elem).map?.fields;
  return fields?.get(key)?.default;
}

/** Go's `%q` of the key names (`["key" "id"]`). */
function omitsAllKeys(list: ListDef): string {
  const names = list.keys.map(strconvQuote).join(' ');
  return `associative list with keys has an element that omits all key fields [${names}] (and doesn't have default values for any key fields)`;
}

/**
 * One step of a path kept as a stack while walking (rendered only when an error needs it: building every
 * node's path string up front costs more than the walk): a field name, a list index, or an item of an
 * associative list (its path element, computed on demand).
 */
export type PathStep = string | number | ItemStep;

export class ItemStep {
  constructor(
    readonly list: ListDef,
    readonly item: JsonValue,
  ) {}

  get pe(): string {
    return associativeItemKey(this.list, this.item).pe ?? '';
  }
}

export function renderPath(steps: readonly PathStep[]): string {
  let out = '';
  for (const s of steps) out += typeof s === 'string' ? fieldElement(s) : typeof s === 'number' ? indexElement(s) : s.pe;
  return out;
}
