/** JMESPath value helpers with Go semantics (go-jmespath's isFalse, reflect.DeepEqual, byte-order strings). */
import type { ReviewGuard } from '../../guard/index.js';
import { hasOwn, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { formatFloatG, goSprint } from '../../go/index.js';
import { FunctionError } from './errors.js';

/** An expression reference (`&expr`) as a function argument: applies the expression to a value. */
export class ExpRef {
  // Private, so no own key shows: go-jmespath's expRef has only an unexported field, which
  // encoding/json writes as `{}` (to_string, a value inserted into a string).
  readonly #apply: (value: JsonValue) => JsonValue;
  constructor(apply: (value: JsonValue) => JsonValue) {
    this.#apply = apply;
  }
  apply(value: JsonValue): JsonValue {
    return this.#apply(value);
  }
}

/** What flows through the evaluator: JSON, plus expression references for function arguments. */
export type Value = JsonValue | ExpRef;

export type JpType = 'number' | 'string' | 'boolean' | 'array' | 'object' | 'null' | 'expref';

export function typeOf(v: Value): JpType {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
  }
  if (Array.isArray(v)) return 'array';
  if (v instanceof ExpRef) return 'expref';
  return 'object';
}

/** JMESPath falsiness: null, false, "", [] and {}. */
export function isFalse(v: Value): boolean {
  if (v === null || v === false || v === '') return true;
  if (typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof ExpRef) return false;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) return false;
  return true;
}


/**
 * reflect.DeepEqual over decoded JSON: numbers compare as float64 (`1 == 1.0`). `guard` is ticked per
 * node (two values sharing subtrees can take exponential time to compare).
 */
export function deepEqual(a: Value, b: Value, guard?: ReviewGuard): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof ExpRef || b instanceof ExpRef) return false;
  guard?.tick();
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], guard)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let count = 0;
  for (const k in a) {
    if (!hasOwn(a, k)) continue;
    count++;
    if (!hasOwn(b, k) || !deepEqual(a[k], b[k], guard)) return false;
  }
  for (const k in b) if (hasOwn(b, k)) count--;
  return count === 0;
}

/**
 * Go's `==` on two interface values holding decoded JSON: scalars by value, different kinds unequal,
 * and two arrays or two objects panic in Go ("comparing uncomparable type") — a function error here.
 */
export function goInterfaceEqual(fn: string, a: Value, b: Value): boolean {
  const ta = typeOf(a);
  if ((ta === 'array' || ta === 'object') && ta === typeOf(b)) {
    throw new FunctionError(fn, `runtime error: comparing uncomparable type ${ta === 'array' ? '[]interface {}' : 'map[string]interface {}'}`);
  }
  return a === b;
}

/** Number of Unicode code points (Go's utf8.RuneCountInString on valid text). */
export function runeCount(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Go's `%v` rendering of a value, used in go-jmespath's type error messages. */
export function goFormatV(v: Value): string {
  return goSprint(v as JsonValue, printExpRef);
}

const printExpRef = (v: object) => (v instanceof ExpRef ? '{expref}' : undefined);

/**
 * Replaces expression references that escaped into a result with `{}`, what Kyverno makes of them (a
 * Go expRef struct, written by encoding/json as an empty object when the result is marshalled). The copy
 * is counted node by node against `guard`'s size bound: a result sharing subtrees would otherwise be
 * copied out exponentially.
 */
export function toJson(v: Value, guard?: ReviewGuard): JsonValue {
  let nodes = 0;
  const copy = (x: Value): JsonValue => {
    if (x instanceof ExpRef) return {};
    if (typeof x !== 'object' || x === null) return x;
    if (guard) {
      guard.checkSize(++nodes, 'a JMESPath result');
      guard.tick();
    }
    if (Array.isArray(x)) return x.map((item) => copy(item as Value));
    const out: JsonObject = {};
    for (const k of Object.keys(x)) setOwn(out, k, copy(x[k]));
    return out;
  };
  return copy(v);
}

/**
 * Why Kyverno's intNumber refuses a number (a non-integer, or one outside Go's int64), or undefined
 * when it takes it. The message prints the number as Go's %g does.
 */
export function intNumberProblem(x: number): string | undefined {
  if (!Number.isInteger(x)) return `expected an integer number but got: ${formatFloatG(x)}`;
  if (x < -(2 ** 63) || x >= 2 ** 63) return `number is outside the range of integer numbers: ${formatFloatG(x)}`;
  return undefined;
}
