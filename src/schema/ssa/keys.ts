import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import { goNumber, goQuote } from '../gofmt.js';
import { resolve, type ListDef } from '../types.js';

/**
 * structured-merge-diff path elements as text: `.field`, `[key="a",port=80]` (keys sorted by name),
 * `[="value"]` for set members, `[3]` for atomic-list indices. For associative lists the text is also the
 * item's identity (strings are quoted, so "80" and 80 differ; SMD compares 1 and 1.0 as equal, as JS does).
 */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(valueToString).join(',') + ']';
  return Object.keys(v)
    .sort()
    .map((k) => `${k}=${valueToString(v[k])}`)
    .join('');
}

export const fieldElement = (name: string) => '.' + name;
export const indexElement = (i: number) => `[${i}]`;

/** The path element of an item of an associative list (set or list-map), or the reason it has none. */
export type ItemKey = { pe: string; error?: undefined } | { pe?: undefined; error: string };

export function associativeItemKey(list: ListDef, item: JsonValue): ItemKey {
  if (list.keys.length === 0) {
    if (item === null) return { error: "associative list without keys has an element that's an explicit null" };
    if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
    if (typeof item === 'object') return { error: "associative list without keys has an element that's a map type" };
    return { pe: `[=${valueToString(item)}]` };
  }
  if (item === null) return { error: 'associative list with keys may not have a null element' };
  if (!isJsonObject(item)) return { error: 'associative list with keys may not have non-map elements' };
  if (list.keys.length === 1) {
    // the common case (name, mountPath, uid...): no sorting, no intermediate arrays
    const key = list.keys[0];
    const own = getOwn(item, key);
    const v = own !== undefined ? own : keyDefault(list, key);
    if (v === undefined) return { error: omitsKey(key) };
    return { pe: `[${key}=${valueToString(v)}]` };
  }
  const parts: [string, JsonValue][] = [];
  for (const key of list.keys) {
    let v = getOwn(item, key);
    if (v === undefined) {
      v = keyDefault(list, key);
      if (v === undefined) {
        return { error: omitsKey(key) };
      }
    }
    parts.push([key, v]);
  }
  if (parts.length > 1) parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { pe: '[' + parts.map(([k, v]) => `${k}=${valueToString(v)}`).join(',') + ']' };
}

/** SMD substitutes the schema default of a key field an item omits (ContainerPort.protocol → "TCP"). */
function keyDefault(list: ListDef, key: string): JsonValue | undefined {
  const fields = resolve(list.elem).map?.fields;
  return fields?.get(key)?.default;
}

function omitsKey(key: string): string {
  return `associative list with keys has an element that omits key field ${goQuote(key)} (and doesn't have default value)`;
}
