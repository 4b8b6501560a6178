/**
 * Precondition operators (`pkg/engine/variables/operator`), applied to a key and a value after variable
 * substitution. Operator names are case-insensitive. Kyverno's rules are kept: `Equals` on strings
 * tries durations, then quantities, then treats the value as a wildcard pattern; the `In` families
 * compare Go-printed strings with wildcards both ways; numeric operators accept numbers, numeric
 * strings, durations, quantities and semantic versions. A null key makes every operator false, NotEquals and
 * the NotIn forms included (each handler's `default:` case for a key type it does not handle).
 */
import { UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { jsonEqual, isJsonObject, type JsonValue } from '../../json/index.js';
import { durationSeconds, SECOND, tryParseDuration } from '../../go/index.js';
import { parseFloat64 } from '../../go/index.js';
import { floatToInt64, wrap64 } from '../../go/index.js';
import { compareQuantities, tryParseQuantity } from '../go/quantity.js';
import { compareVersions, tryParseVersion } from '../../go/index.js';
import { goSprint } from '../../go/index.js';
import { hasWildcard, wildcardMatch } from '../../go/index.js';
import { isRangePattern, valueMatches } from './pattern.js';

export type OperatorName =
  | 'equals'
  | 'notequals'
  | 'in'
  | 'notin'
  | 'anyin'
  | 'allin'
  | 'anynotin'
  | 'allnotin'
  | 'greaterthan'
  | 'greaterthanorequals'
  | 'lessthan'
  | 'lessthanorequals'
  | 'durationgreaterthan'
  | 'durationgreaterthanorequals'
  | 'durationlessthan'
  | 'durationlessthanorequals';

const ALIASES: Record<string, OperatorName> = { equal: 'equals', notequal: 'notequals' };
const NAMES = new Set<string>([
  'equals', 'notequals', 'in', 'notin', 'anyin', 'allin', 'anynotin', 'allnotin',
  'greaterthan', 'greaterthanorequals', 'lessthan', 'lessthanorequals',
  'durationgreaterthan', 'durationgreaterthanorequals', 'durationlessthan', 'durationlessthanorequals',
]);

/** The canonical operator for a policy's spelling, or undefined when Kyverno has no such operator. */
export function normalizeOperator(name: string): OperatorName | undefined {
  const lower = name.toLowerCase();
  if (Object.hasOwn(ALIASES, lower)) return ALIASES[lower];
  return NAMES.has(lower) ? (lower as OperatorName) : undefined;
}

/** `guard`: the review's, ticked in the comparisons that can take long (lists against lists, wildcards). */
export function evaluateOperator(op: OperatorName, key: JsonValue, value: JsonValue, guard: ReviewGuard = UNBOUNDED_GUARD): boolean {
  switch (op) {
    case 'equals':
      return equals(key, value, guard);
    case 'notequals':
      // NotEqualHandler.Evaluate answers false, not "not equal", for a key of a type it does not handle
      // (null, e.g. a label that lookup() did not find).
      return key !== null && !equals(key, value, guard);
    case 'in':
      return deprecatedMembership(key, value, false, guard) === true;
    case 'notin':
      return deprecatedMembership(key, value, true, guard) === false;
    case 'anyin':
      return inFamily(key, value, 'any', false, guard);
    case 'allin':
      return inFamily(key, value, 'all', false, guard);
    case 'anynotin':
      return inFamily(key, value, 'any', true, guard);
    case 'allnotin':
      return inFamily(key, value, 'all', true, guard);
    case 'greaterthan':
      return numeric(key, value, (c) => c > 0);
    case 'greaterthanorequals':
      return numeric(key, value, (c) => c >= 0);
    case 'lessthan':
      return numeric(key, value, (c) => c < 0);
    case 'lessthanorequals':
      return numeric(key, value, (c) => c <= 0);
    case 'durationgreaterthan':
      return durationOp(key, value, (c) => c > 0);
    case 'durationgreaterthanorequals':
      return durationOp(key, value, (c) => c >= 0);
    case 'durationlessthan':
      return durationOp(key, value, (c) => c < 0);
    case 'durationlessthanorequals':
      return durationOp(key, value, (c) => c <= 0);
  }
}

const cmp = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);

/** `time.Duration(seconds) * time.Second` for a JSON number (a float64 in Go). */
const secondsToDuration = (seconds: number): bigint => wrap64(floatToInt64(seconds) * SECOND);

/**
 * Kyverno's `parseDuration(key, value)`: at least one side must be a duration string (other than "0");
 * the other may be a duration string or a number of seconds. Kyverno then compares `Duration.Seconds()`,
 * float64 seconds, so that is what this returns.
 */
function durationPair(key: JsonValue, value: JsonValue): [number, number] | undefined {
  const asDuration = (v: JsonValue) => (typeof v === 'string' && v !== '0' ? tryParseDuration(v) : undefined);
  let k = asDuration(key);
  let v = asDuration(value);
  if (k === undefined && v === undefined) return undefined;
  if (k === undefined) {
    if (typeof key !== 'number') return undefined;
    k = secondsToDuration(key);
  }
  if (v === undefined) {
    if (typeof value !== 'number') return undefined;
    v = secondsToDuration(value);
  }
  return [durationSeconds(k), durationSeconds(v)];
}

function equals(key: JsonValue, value: JsonValue, guard: ReviewGuard): boolean {
  if (typeof key === 'boolean') return value === key;
  if (typeof key === 'number') {
    if (typeof value === 'number') return value === key;
    if (typeof value === 'string') return parseFloat64(value) === key;
    return false;
  }
  if (typeof key === 'string') {
    const durations = durationPair(key, value);
    if (durations) return durations[0] === durations[1];
    const keyQuantity = tryParseQuantity(key);
    if (keyQuantity && typeof value === 'string') {
      const valueQuantity = tryParseQuantity(value);
      return valueQuantity !== undefined && compareQuantities(keyQuantity, valueQuantity) === 0;
    }
    return typeof value === 'string' && wildcardMatch(value, key, guard);
  }
  if (key === null) return false;
  if (Array.isArray(key)) return Array.isArray(value) && jsonEqual(key, value);
  return isJsonObject(value) && jsonEqual(key, value);
}

/**
 * goSprint of each item, by a loop: the lists are often the policy's own, which are frozen, and V8 runs
 * `map`/`some`/`every` on frozen arrays several times slower than on others.
 */
function sprintAll(list: readonly JsonValue[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) out.push(goSprint(list[i]));
  return out;
}

function bothWays(a: string, b: string, guard: ReviewGuard): boolean {
  guard.tick();
  return wildcardMatch(a, b, guard) || wildcardMatch(b, a, guard);
}

/**
 * AnyIn / AllIn / AnyNotIn / AllNotIn (operator/anyin.go, allin.go and their NotIn forms). A scalar key
 * is printed as Go prints it and checked for membership (`scalarIn`); a list key's items are printed
 * and quantified (`listIn`). A value the operator cannot read makes all four false.
 */
function inFamily(key: JsonValue, value: JsonValue, quantifier: 'any' | 'all', negated: boolean, guard: ReviewGuard): boolean {
  if (typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean') {
    const found = scalarIn(typeof key === 'string' ? key : goSprint(key), value, guard);
    return found !== undefined && found !== negated;
  }
  if (!Array.isArray(key)) return false;
  return listIn(sprintAll(key), value, quantifier, negated, guard) ?? false;
}

/**
 * One key in the value: a list holds it when an item matches it as a wildcard either way; a string when
 * the string, as a wildcard, matches it, when it is a range holding it, or when it is JSON for a list of
 * strings with the key exactly (other text: the one item). Numbers, booleans, objects: undefined.
 */
function scalarIn(key: string, value: JsonValue, guard: ReviewGuard): boolean | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (bothWays(key, goSprint(value[i]), guard)) return true;
    return false;
  }
  if (typeof value !== 'string') return undefined;
  if (wildcardMatch(value, key, guard)) return true;
  if (isRangePattern(value)) return valueMatches(key, value);
  return textItems(value)?.includes(key);
}

/**
 * Keys against the value, items matched as wildcards either way. A number or boolean value is one item
 * for AnyIn/AnyNotIn and unreadable for AllIn/AllNotIn; a string equal to the only key is "in" it; a range
 * is checked per key (AnyNotIn asks whether some key is in the range written with `!-`).
 */
function listIn(keys: string[], value: JsonValue, quantifier: 'any' | 'all', negated: boolean, guard: ReviewGuard): boolean | undefined {
  let values: string[] | undefined;
  if (Array.isArray(value)) {
    values = sprintAll(value);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    if (quantifier === 'all') return undefined;
    values = [goSprint(value)];
  } else if (typeof value === 'string') {
    if (keys.length === 1 && keys[0] === value) return !negated;
    if (isRangePattern(value)) {
      if (quantifier === 'any' && negated) {
        const outside = value.replace('-', '!-');
        return keys.some((k) => valueMatches(k, outside));
      }
      return quantify(keys.map((k) => valueMatches(k, value)), quantifier, negated);
    }
    values = textItems(value);
  }
  if (!values) return undefined;
  const items = values;
  if (keys.length * items.length > PAIRS_WORTH_INDEXING) {
    const index = new InValues(items);
    return quantify(keys.map((k) => index.contains(k, guard)), quantifier, negated);
  }
  return quantify(keys.map((k) => items.some((v) => bothWays(k, v, guard))), quantifier, negated);
}

/** A string value's items: JSON text is decoded as a list of strings (undefined if it is not one), other text is one item. */
function textItems(text: string): string[] | undefined {
  const decoded = unmarshalStrings(text);
  return decoded === NOT_JSON ? [text] : decoded;
}

/** Below this many key-value pairs, comparing every pair costs less than building an index. */
const PAIRS_WORTH_INDEXING = 256;

/**
 * The value list of an `In` operator, indexed so that a list of keys against a list of values costs
 * O(keys + values) when neither side holds wildcards, instead of comparing every pair. Matching both
 * ways without a wildcard on either side is equality, so a key without wildcards is looked up among the
 * values without wildcards and tried only against the values that are patterns; a key that is itself a
 * pattern is tried against every value, as before.
 */
class InValues {
  private readonly literals = new Set<string>();
  private readonly patterns: string[] = [];

  constructor(private readonly values: readonly string[]) {
    for (const v of values) {
      if (hasWildcard(v)) this.patterns.push(v);
      else this.literals.add(v);
    }
  }

  contains(key: string, guard: ReviewGuard): boolean {
    if (hasWildcard(key)) return this.values.some((v) => bothWays(key, v, guard));
    guard.tick();
    return this.literals.has(key) || this.patterns.some((v) => bothWays(key, v, guard));
  }
}

/** AnyIn: some key is in; AllIn: every key is; the NotIn forms ask the same of "is not in". */
function quantify(found: boolean[], quantifier: 'any' | 'all', negated: boolean): boolean {
  const holds = (f: boolean) => f !== negated;
  return quantifier === 'any' ? found.some(holds) : found.every(holds);
}

/**
 * Deprecated `In`/`NotIn` (operator/in.go, notin.go): whether the key is in the value, or undefined
 * when the value has a type the operator cannot read (both operators are then false).
 * - A scalar key (printed as Go prints it) is in a list when it matches an item as a wildcard either
 *   way; in a string when the string, as a wildcard, matches it, else when the string is a JSON list
 *   of strings holding it exactly.
 * - A list of strings is in a list of strings (or a JSON text of one) when every key is, exactly; a
 *   one-item list is also in a string equal to its item — for `NotIn` too, as in Kyverno.
 */
function deprecatedMembership(key: JsonValue, value: JsonValue, negated: boolean, guard: ReviewGuard): boolean | undefined {
  if (typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean') {
    const k = typeof key === 'string' ? key : goSprint(key);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (bothWays(k, goSprint(value[i]), guard)) return true;
      return false;
    }
    if (typeof value !== 'string') return undefined;
    if (wildcardMatch(value, k, guard)) return true;
    const items = unmarshalStrings(value);
    return items === NOT_JSON ? undefined : items?.includes(k);
  }
  if (!Array.isArray(key) || !key.every((k) => typeof k === 'string')) return undefined;
  const keys = key as string[];
  let values: string[] | undefined;
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) return undefined;
    values = value as string[];
  } else if (typeof value === 'string') {
    if (keys.length === 1 && keys[0] === value) return !negated;
    const items = unmarshalStrings(value);
    if (items !== NOT_JSON) values = items;
  }
  if (!values) return undefined;
  const set = new Set(values);
  return keys.every((k) => set.has(k));
}

const NOT_JSON = Symbol('not JSON');

/**
 * Go's json.Unmarshal of text into []string: `null` is an empty list and a `null` item an empty string;
 * JSON that is not a list of strings is undefined, text that is not JSON at all NOT_JSON.
 */
function unmarshalStrings(text: string): string[] | undefined | typeof NOT_JSON {
  // Most values are plain words ("CREATE"): not JSON, known without a thrown SyntaxError.
  if (!JSON_START.test(text)) return NOT_JSON;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string' || p === null)) return undefined;
  return parsed.map((p) => (p === null ? '' : (p as string)));
}

/** JSON text starts, after JSON's blanks, with one of `[{"-`, a digit, or `t`, `f`, `n` (true, false, null). */
const JSON_START = /^[ \t\n\r]*[[{"\-0-9tfn]/;

/** Kyverno tries strconv.ParseFloat, then ParseInt; every text ParseInt accepts, ParseFloat does too. */
function numberOf(value: JsonValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseFloat64(value);
  return undefined;
}

function numeric(key: JsonValue, value: JsonValue, test: (c: number) => boolean): boolean {
  const durations = durationPair(key, value);
  if (typeof key === 'number') {
    if (typeof value === 'string' && durations) return test(cmp(durations[0], durations[1]));
    const v = numberOf(value);
    return v !== undefined && test(cmp(key, v));
  }
  if (typeof key !== 'string') return false;
  if (durations) return test(cmp(durations[0], durations[1]));
  const kq = tryParseQuantity(key);
  const vq = typeof value === 'string' ? tryParseQuantity(value) : undefined;
  if (kq && vq) return test(compareQuantities(kq, vq));
  const k = numberOf(key);
  if (k !== undefined) return numeric(k, value, test);
  const kv = tryParseVersion(key);
  if (kv) {
    const vv = typeof value === 'string' ? tryParseVersion(value) : undefined;
    return vv !== undefined && test(compareVersions(kv, vv));
  }
  return false;
}

/** The deprecated `Duration*` operators: numbers are seconds, strings must be durations; compared exactly. */
function durationOp(key: JsonValue, value: JsonValue, test: (c: number) => boolean): boolean {
  const ns = (v: JsonValue) => (typeof v === 'number' ? secondsToDuration(v) : typeof v === 'string' ? tryParseDuration(v) : undefined);
  const k = ns(key);
  const v = ns(value);
  return k !== undefined && v !== undefined && test(k < v ? -1 : k > v ? 1 : 0);
}
