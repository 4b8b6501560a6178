import { checkBuiltSize } from '../../engine/bounds.js';
import { mapGet, mapKeys, typeNameOf } from '../../engine/runtime.js';
import { isMapValue, type CelMapValue } from '../../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversalCost } from '../cost.js';
import { celError } from '../errors.js';
import { goMap } from './documents.js';

/**
 * Kyverno's transform library (kyverno/sdk `extensions/cel/libs/transform`):
 * `listObjToMap(keys, values, keyField, valueField) -> map` (also `transform.listObjToMap`): for each i,
 * map[keys[i][keyField]] = values[i][valueField]; the lists must have equal lengths.
 */

/**
 * `entry[name]`, null when absent. Kyverno converts each entry to a Go map[string]any first (impl.go
 * refValMapToGoMap): a map with a key that is no string fails there, with its own text for the key list
 * and the value list's usual one for the value list.
 */
function field(entry: unknown, name: string, what: 'key' | 'value'): unknown {
  const notMap = `object cannot be handled as a map string to any in the ${what} object list`;
  if (!isMapValue(entry)) throw celError(notMap);
  const m = entry as CelMapValue;
  const keys = mapKeys(m);
  const bad = keys.find((k) => typeof k !== 'string');
  if (bad !== undefined) throw celError(what === 'key' ? `failed to convert key to a string, ${typeNameOf(bad)}` : notMap);
  return keys.some((k) => k === name) ? mapGet(m, name) : null;
}

function listObjToMap(keys: unknown[], values: unknown[], keyName: string, valueName: string): Map<string, unknown> {
  if (keys.length !== values.length) throw celError(`listObjToMap must take lists of equal length. list1: ${keys.length}, list2: ${values.length}`);
  checkBuiltSize(keys.length, 'the result of listObjToMap');
  // Kyverno builds a Go map[string]any (NativeToValue of it), handed to Go untouched by json.marshal.
  const out = goMap(new Map<string, unknown>());
  keys.forEach((entry, i) => {
    const k = field(entry, keyName, 'key');
    if (typeof k !== 'string') throw celError('the passed key name cannot be handled as a string in the key object list');
    out.set(k, field(values[i], valueName, 'value'));
  });
  return out;
}

export const transformLibrary: CelLibrary = {
  name: 'kyverno.transform',
  register(r: LibraryRegistrar) {
    for (const name of ['listObjToMap', 'transform.listObjToMap']) {
      r.registerFunction(`${name}(list<dyn>, list<dyn>, string, string): map<string, dyn>`, listObjToMap);
    }
  },
  callCost(fn, args) {
    // Walks both lists once.
    return fn.endsWith('listObjToMap') ? 1 + traversalCost(args[0]) + traversalCost(args[1]) : undefined;
  },
};
