/**
 * The JMESPath built-in functions with go-jmespath's semantics (Kyverno's `sum` lives in
 * arithmetic.ts and replaces the standard one). Go iterates maps in random order, so `keys`, `values`
 * and `merge` have no defined order in Kyverno; here they follow the document's key order.
 */
import { setOwn, type JsonObject, type JsonValue } from '../../../json/index.js';
import { FunctionError } from '../errors.js';
import { parseFloat64 } from '../../../go/index.js';
import { goJsonStringify } from '../../../go/index.js';
import { compareStrings } from '../../../go/index.js';
import type { FunctionDef } from '../registry.js';
import { jsonSize } from '../size.js';
import { ExpRef, goInterfaceEqual, runeCount, typeOf, type Value } from '../values.js';

const num = (v: Value) => v as number;
const str = (v: Value) => v as string;
const arr = (v: Value) => v as JsonValue[];
const obj = (v: Value) => v as JsonObject;
const ref = (v: Value) => v as ExpRef;

/** strconv.ParseFloat for to_number: null when Go fails, and for ±Inf and NaN, which JSON cannot hold. */
function toNumber(s: string): number | null {
  const n = parseFloat64(s);
  return n !== undefined && Number.isFinite(n) ? n : null;
}

function byKey(fn: string, items: JsonValue[], key: ExpRef, pick: 'max' | 'min'): JsonValue {
  if (items.length === 0) return null;
  if (items.length === 1) return items[0];
  const first = key.apply(items[0]);
  if (typeof first !== 'number' && typeof first !== 'string') throw new FunctionError(fn, 'invalid type, must be number of string');
  let best: number | string = first;
  let bestItem = items[0];
  for (let i = 1; i < items.length; i++) {
    const k = key.apply(items[i]) as number | string;
    if (typeof k !== typeof first) throw new FunctionError(fn, `invalid type, must be ${typeof first}`);
    const better =
      typeof k === 'number' ? (pick === 'max' ? k > (best as number) : k < (best as number)) : pick === 'max' ? compareStrings(k as string, best as string) > 0 : compareStrings(k as string, best as string) < 0;
    if (better) {
      best = k;
      bestItem = items[i];
    }
  }
  return bestItem;
}

function extreme(items: JsonValue[], pick: 'max' | 'min'): JsonValue {
  if (items.length === 0) return null;
  let best = items[0];
  for (let i = 1; i < items.length; i++) {
    const x = items[i];
    const better =
      typeof x === 'number' ? (pick === 'max' ? x > (best as number) : x < (best as number)) : pick === 'max' ? compareStrings(x as string, best as string) > 0 : compareStrings(x as string, best as string) < 0;
    if (better) best = x;
  }
  return best;
}

export const standardFunctions: FunctionDef[] = [
  {
    name: 'abs',
    args: [{ types: ['number'] }],
    returns: ['number'],
    note: 'absolute value of a number',
    call: ([n]) => Math.abs(num(n)),
  },
  {
    name: 'avg',
    args: [{ types: ['array[number]'] }],
    returns: ['number'],
    note: 'average of an array of numbers',
    call: ([a]) => {
      const items = arr(a) as number[];
      // Go computes 0/0 = NaN, which then fails to encode; say so at once.
      if (items.length === 0) throw new FunctionError('avg', 'json: unsupported value: NaN (average of an empty array)');
      let sum = 0;
      for (const x of items) sum += x;
      return sum / items.length;
    },
  },
  {
    name: 'ceil',
    args: [{ types: ['number'] }],
    returns: ['number'],
    note: 'smallest integer not below the number',
    call: ([n]) => Math.ceil(num(n)),
  },
  {
    name: 'contains',
    args: [{ types: ['array', 'string'] }, { types: ['any'] }],
    returns: ['boolean'],
    note: 'whether a string contains a substring or an array an element',
    call: ([subject, search]) => {
      if (typeof subject === 'string') return typeof search === 'string' ? subject.includes(search) : false;
      for (const item of arr(subject)) if (goInterfaceEqual('contains', item, search)) return true;
      return false;
    },
  },
  {
    name: 'ends_with',
    args: [{ types: ['string'] }, { types: ['string'] }],
    returns: ['boolean'],
    note: 'whether the first string ends with the second',
    call: ([s, suffix]) => str(s).endsWith(str(suffix)),
  },
  {
    name: 'floor',
    args: [{ types: ['number'] }],
    returns: ['number'],
    note: 'largest integer not above the number',
    call: ([n]) => Math.floor(num(n)),
  },
  {
    name: 'join',
    args: [{ types: ['string'] }, { types: ['array[string]'] }],
    returns: ['string'],
    note: 'joins an array of strings with a separator',
    call: ([sep, items], ctx) => {
      const list = arr(items) as string[];
      let length = Math.max(0, list.length - 1) * str(sep).length;
      for (const item of list) length += item.length;
      ctx.guard.checkSize(length, 'the result of join()');
      return list.join(str(sep));
    },
  },
  {
    name: 'keys',
    args: [{ types: ['object'] }],
    returns: ['array'],
    note: 'the keys of an object',
    call: ([o]) => Object.keys(obj(o)),
  },
  {
    name: 'length',
    args: [{ types: ['string', 'array', 'object'] }],
    returns: ['number'],
    note: 'length of a string (in characters), array or object',
    call: ([v]) => {
      if (typeof v === 'string') return runeCount(v);
      if (Array.isArray(v)) return v.length;
      return Object.keys(obj(v)).length;
    },
  },
  {
    name: 'map',
    args: [{ types: ['expref'] }, { types: ['array'] }],
    returns: ['array'],
    note: 'applies an expression to every element of an array',
    call: ([e, items]) => arr(items).map((x) => ref(e).apply(x)),
  },
  {
    name: 'max',
    args: [{ types: ['array[number]', 'array[string]'] }],
    returns: ['number', 'string'],
    note: 'largest number or string of an array',
    call: ([a]) => extreme(arr(a), 'max'),
  },
  {
    name: 'max_by',
    args: [{ types: ['array'] }, { types: ['expref'] }],
    returns: ['any'],
    note: 'element with the largest key',
    call: ([a, e]) => byKey('max_by', arr(a), ref(e), 'max'),
  },
  {
    name: 'merge',
    args: [{ types: ['object'], variadic: true }],
    returns: ['object'],
    note: 'merges objects, later keys winning',
    call: (objects) => {
      const out: JsonObject = {};
      for (const o of objects) {
        if (typeOf(o) !== 'object') throw new FunctionError('merge', `invalid type, must be object`);
        for (const k of Object.keys(obj(o))) setOwn(out, k, obj(o)[k]);
      }
      return out;
    },
  },
  {
    name: 'min',
    args: [{ types: ['array[number]', 'array[string]'] }],
    returns: ['number', 'string'],
    note: 'smallest number or string of an array',
    call: ([a]) => extreme(arr(a), 'min'),
  },
  {
    name: 'min_by',
    args: [{ types: ['array'] }, { types: ['expref'] }],
    returns: ['any'],
    note: 'element with the smallest key',
    call: ([a, e]) => byKey('min_by', arr(a), ref(e), 'min'),
  },
  {
    name: 'not_null',
    args: [{ types: ['any'], variadic: true }],
    returns: ['any'],
    note: 'first argument that is not null',
    call: (values) => {
      for (const v of values) if (v !== null) return v;
      return null;
    },
  },
  {
    name: 'reverse',
    args: [{ types: ['array', 'string'] }],
    returns: ['array', 'string'],
    note: 'reverses a string (by character) or an array',
    call: ([v]) => (typeof v === 'string' ? Array.from(v).reverse().join('') : [...arr(v)].reverse()),
  },
  {
    name: 'sort',
    args: [{ types: ['array[string]', 'array[number]'] }],
    returns: ['array'],
    note: 'sorts an array of strings or numbers',
    // The comparators tick the review guard: a sort is one call, n log n comparisons (a few million
    // strings split from a large annotation took seconds past the deadline).
    call: ([a], ctx) => {
      const items = [...arr(a)];
      const { guard } = ctx;
      if (items.every((x) => typeof x === 'number')) {
        return (items as number[]).sort((x, y) => {
          guard.tick();
          return x - y;
        });
      }
      return (items as string[]).sort((x, y) => {
        guard.tick();
        return compareStrings(x, y);
      });
    },
  },
  {
    name: 'sort_by',
    args: [{ types: ['array'] }, { types: ['expref'] }],
    returns: ['array'],
    note: 'sorts an array by the key an expression computes',
    call: ([a, e], ctx) => {
      const items = arr(a);
      if (items.length < 2) return items;
      const { guard } = ctx;
      const keys = items.map((x) => ref(e).apply(x));
      const kind = typeof keys[0];
      if (kind !== 'number' && kind !== 'string') throw new FunctionError('sort_by', 'invalid type, must be number of string');
      if (keys.some((k) => typeof k !== kind)) throw new FunctionError('sort_by', 'error in sort_by comparison');
      const order = items.map((_, i) => i);
      order.sort((i, j) => {
        guard.tick();
        return kind === 'number' ? (keys[i] as number) - (keys[j] as number) : compareStrings(keys[i] as string, keys[j] as string);
      });
      return order.map((i) => items[i]);
    },
  },
  {
    name: 'starts_with',
    args: [{ types: ['string'] }, { types: ['string'] }],
    returns: ['boolean'],
    note: 'whether the first string starts with the second',
    call: ([s, prefix]) => str(s).startsWith(str(prefix)),
  },
  {
    name: 'to_array',
    args: [{ types: ['any'] }],
    returns: ['array'],
    note: 'wraps a non-array value in an array',
    call: ([v]) => (Array.isArray(v) ? v : [v as JsonValue]),
  },
  {
    name: 'to_number',
    args: [{ types: ['any'] }],
    returns: ['number'],
    note: 'a number, or a string parsed as one (else null)',
    call: ([v]) => {
      // jpfToNumber, like jpfType, ends in 'unknown type' for anything but the six JSON types.
      if (v instanceof ExpRef) throw new FunctionError('to_number', 'unknown type');
      return typeof v === 'number' ? v : typeof v === 'string' ? toNumber(v) : null;
    },
  },
  {
    name: 'to_string',
    args: [{ types: ['any'] }],
    returns: ['string'],
    note: 'a string, or the JSON text of any other value',
    call: ([v], ctx) => {
      if (typeof v === 'string') return v;
      // Estimated first (shared subtrees measured once), then counted exactly while written.
      ctx.guard.checkSize(jsonSize(v, new WeakMap(), ctx.guard.maxValueBytes, ctx.guard), 'the result of to_string()');
      return goJsonStringify(v as JsonValue, ctx.guard);
    },
  },
  {
    name: 'type',
    args: [{ types: ['any'] }],
    returns: ['string'],
    note: 'the JMESPath type name of a value',
    // go-jmespath's jpfType knows the six JSON types only: an expression reference is 'unknown type'.
    call: ([v]) => {
      if (v instanceof ExpRef) throw new FunctionError('type', 'unknown type');
      return typeOf(v);
    },
  },
  {
    name: 'values',
    args: [{ types: ['object'] }],
    returns: ['array'],
    note: 'the values of an object',
    call: ([o]) => Object.values(obj(o)),
  },
];

