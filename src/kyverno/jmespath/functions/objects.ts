/** Kyverno's object and array helpers: label_match, lookup, items, object_from_lists. */
import { hasOwn, setOwn, type JsonObject, type JsonValue } from '../../../json/index.js';
import { FunctionError, kyvernoError } from '../errors.js';
import type { FunctionDef } from '../registry.js';
import { compareStrings } from '../../../go/index.js';
import { deepEqual, intNumberProblem, type Value } from '../values.js';
import { ifaceToString } from './strings.js';

function pair(keyName: string, k: JsonValue, valueName: string, v: JsonValue): JsonObject {
  const o: JsonObject = {};
  setOwn(o, keyName, k);
  setOwn(o, valueName, v);
  return o;
}

/** Kyverno's intNumber: a float with an integral value within int64, else an error. */
function intNumber(fn: string, x: number): number {
  const problem = intNumberProblem(x);
  if (problem) throw new FunctionError(fn, `JMESPath function '${fn}': argument #2: ${problem}`);
  return x;
}

export const objectFunctions: FunctionDef[] = [
  {
    name: 'label_match',
    args: [{ types: ['object'] }, { types: ['object'] }],
    returns: ['boolean'],
    note: 'object arguments must be enclosed in backticks; ex. `{{request.object.spec.template.metadata.labels}}`',
    // Values compare deeply (reflect.DeepEqual): a selector may hold maps or lists, not only strings.
    call: ([selector, labels], ctx) => {
      const sel = selector as JsonObject;
      const lab = labels as JsonObject;
      for (const key of Object.keys(sel)) {
        if (!hasOwn(lab, key) || !deepEqual(lab[key], sel[key], ctx.guard)) return false;
      }
      return true;
    },
  },
  {
    name: 'lookup',
    args: [{ types: ['object', 'array'] }, { types: ['string', 'number'] }],
    returns: ['any'],
    note: 'returns the value corresponding to the given key/index in the given object/array',
    call: ([collection, key]) => {
      if (Array.isArray(collection)) {
        if (typeof key !== 'number') throw kyvernoError.invalidArgumentType('lookup', 2, 'Number');
        const i = intNumber('lookup', key);
        return i < 0 || i > collection.length - 1 ? null : collection[i];
      }
      if (typeof key !== 'string') throw kyvernoError.invalidArgumentType('lookup', 2, 'String');
      const o = collection as JsonObject;
      return hasOwn(o, key) ? o[key] : null;
    },
  },
  {
    name: 'items',
    args: [{ types: ['object', 'array'] }, { types: ['string'] }, { types: ['string'] }],
    returns: ['array'],
    note: 'converts a map or array to an array of objects where each key:value is an item in the array',
    call: ([input, keyName, valName]) => {
      const kn = keyName as string;
      const vn = valName as string;
      if (Array.isArray(input)) return input.map((v, i) => pair(kn, i, vn, v));
      const o = input as JsonObject;
      return Object.keys(o)
        .sort(compareStrings)
        .map((k) => pair(kn, k, vn, o[k]));
    },
  },
  {
    name: 'object_from_lists',
    args: [{ types: ['array'] }, { types: ['array'] }],
    returns: ['object'],
    note: 'converts a pair of lists containing keys and values to an object',
    call: ([keys, values]) => {
      const ks = keys as JsonValue[];
      const vs = values as JsonValue[];
      const out: JsonObject = {};
      ks.forEach((k, i) => {
        let key: string;
        try {
          key = ifaceToString('object_from_lists', 1, k as Value);
        } catch {
          throw kyvernoError.invalidArgumentType('object_from_lists', 1, 'StringArray');
        }
        setOwn(out, key, i < vs.length ? vs[i] : null);
      });
      return out;
    },
  },
];
