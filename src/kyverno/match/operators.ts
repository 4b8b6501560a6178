/**
 * Precondition operators (`pkg/engine/variables/operator`), applied to a key and a value after variable
 * substitution. Operator names are case-insensitive. Kyverno's rules are kept: `Equals` on strings
 * tries durations, then quantities, then treats the value as a wildcard pattern; the `In` families
 * compare Go-printed strings with wildcards both ways; numeric operators accept numbers, numeric
 * strings, durations, quantities and semantic versions; a null key never equals anything.
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
  if (lower in ALIASES) return ALIASES[lower];
  return NAMES.has(lower) ? (lower as OperatorName) : undefined;
}

/** `guard`: the review's, ticked in the comparisons that can take long (lists against lists, wildcards). */
export function evaluateOperator(op: OperatorName, key: JsonValue, value: JsonValue, guard: ReviewGuard = UNBOUNDED_GUARD): boolean {
  switch (op) {
    case 'equals':
      return equals(key, value, guard);
    case 'notequals':
      return !equals(key, value, guard);
    case 'in':
      return deprecatedMembership(key, value) === true;
    case 'notin':
      return deprecatedMembership(key, value) === false;
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

/** The value side of the `In` operators as a list of strings: a list, or a string that is one item or a JSON list. */
function valueStrings(value: JsonValue): string[] | undefined {
  if (Array.isArray(value)) return sprintAll(value);
  if (typeof value === 'number') return [goSprint(value)];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) return parsed as string[];
      return undefined; // valid JSON that is not a list of strings: Kyverno reports a type error
    } catch {
      // not JSON: a single item
    }
  }
  return [value];
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

function inFamily(key: JsonValue, value: JsonValue, quantifier: 'any' | 'all', negated: boolean, guard: ReviewGuard): boolean {
  let keys: string[];
  if (typeof key === 'string') keys = [key];
  else if (typeof key === 'number' || typeof key === 'boolean') keys = [goSprint(key)];
  else if (Array.isArray(key)) keys = sprintAll(key);
  else return false;

  // A range such as "1-10" as the value: each key is checked against it.
  if (typeof value === 'string' && isRangePattern(value)) {
    return quantify(keys.map((k) => valueMatches(k, value)), quantifier, negated);
  }
  if (typeof value === 'string' && keys.length === 1 && (typeof key !== 'object' || key === null)) {
    if (wildcardMatch(value, keys[0], guard)) return !negated;
  }
  const values = valueStrings(value);
  if (!values) return false;
  if (keys.length * values.length > PAIRS_WORTH_INDEXING) {
    const index = new InValues(values);
    return quantify(keys.map((k) => index.contains(k, guard)), quantifier, negated);
  }
  return quantify(keys.map((k) => values.some((v) => bothWays(k, v, guard))), quantifier, negated);
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
 * Deprecated `In`/`NotIn`: exact membership of a string (or of every string of a list) in the value
 * list; undefined where neither operator applies (both are then false).
 */
function deprecatedMembership(key: JsonValue, value: JsonValue): boolean | undefined {
  const values = valueStrings(value);
  if (!values) return undefined;
  if (typeof key === 'string') return values.includes(key);
  if (Array.isArray(key)) return key.every((k) => typeof k === 'string' && values.includes(k));
  return undefined;
}

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
