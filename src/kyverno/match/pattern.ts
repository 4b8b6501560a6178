/**
 * Kyverno's validate pattern language for one value (pkg/engine/pattern), which condition anchors of
 * mutate overlays use (`(image): "*:latest"`, `(replicas): ">1"`, `(name): "a*|b*"`) and the `In`
 * operators use for ranges (`1-10`): `valueMatches` compares one scalar with one pattern value.
 * `match-pattern.ts` walks a resource against a pattern tree with it.
 */
import { isJsonObject, type JsonValue } from '../../json/index.js';
import { formatFloatE, parseFloat64 } from '../../go/index.js';
import { parseInt64 } from '../../go/index.js';
import { compareQuantities, tryParseQuantity } from '../go/quantity.js';
import { goTrimSpace, hasWildcard, tryParseDuration, wildcardMatch } from '../../go/index.js';

/** One scalar against one pattern value (`pattern.Validate`). */
export function valueMatches(value: JsonValue, pattern: JsonValue): boolean {
  if (typeof pattern === 'boolean') return value === pattern;
  if (typeof pattern === 'number') return numberMatches(value, pattern);
  if (typeof pattern === 'string') return stringPatternMatches(value, pattern);
  if (pattern === null) return value === null || value === 0 || value === '' || value === false;
  if (isJsonObject(pattern)) return isJsonObject(value);
  return false; // arrays are not value patterns
}

/**
 * Is `pattern` one that only a value of exactly that text matches (valueMatches: a string, or a number
 * or boolean printed so)? True when it holds no alternative (`|`), conjunction (`&`), operator, range or
 * wildcard, reads as neither a duration nor a quantity (those compare as such: `E4` and `E0` are both the
 * quantity 0) and has no surrounding space (trimmed before comparing). Lets a caller look values up by
 * text instead of matching each one.
 */
export function isLiteralPattern(pattern: string): boolean {
  if (pattern !== goTrimSpace(pattern) || pattern.includes('|') || pattern.includes('&') || hasWildcard(pattern)) return false;
  return operatorOf(pattern) === '' && tryParseDuration(pattern) === undefined && tryParseQuantity(pattern) === undefined;
}

function numberMatches(value: JsonValue, pattern: number): boolean {
  if (typeof value === 'number') return value === pattern;
  if (typeof value !== 'string') return false;
  // An integral pattern within int64 is an int64 in Kyverno (strconv.ParseInt), any other a float64.
  const parsed = Number.isInteger(pattern) && Math.abs(pattern) < 2 ** 63 ? parseInt64(value) : parseFloat64(value);
  return parsed !== undefined && Number(parsed) === pattern;
}

function stringPatternMatches(value: JsonValue, pattern: string): boolean {
  if (value === pattern) return true; // `!x` matches the text `!x` itself
  // One alternative of one condition (`*`, `web-*`, `>1`): no split.
  if (!pattern.includes('|') && !pattern.includes('&')) return singlePatternMatches(value, trimBlanks(pattern));
  return pattern.split('|').some((alternative) =>
    trimBlanks(alternative)
      .split('&')
      .every((condition) => singlePatternMatches(value, trimBlanks(condition))),
  );
}

/**
 * strings.Trim(condition, " "): validateStringPatterns trims the alternatives and conditions of ASCII
 * spaces only, so a tab or U+00A0 before an operator leaves it no operator (`\t>1` is text).
 */
function trimBlanks(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) === 0x20) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

type Operator = '' | '>=' | '<=' | '>' | '<' | '!' | 'range' | 'notRange';
const RANGE = /^([-+]?\d+(?:\.\d+)?[A-Za-z]*)-([-+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_RANGE = /^([-+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

export function operatorOf(pattern: string): Operator {
  if (pattern.length < 2) return '';
  for (const op of ['>=', '<=', '>', '<', '!'] as const) if (pattern.startsWith(op)) return op;
  if (NOT_RANGE.test(pattern)) return 'notRange';
  if (RANGE.test(pattern)) return 'range';
  return '';
}

/** True when `pattern` is a range such as `10-20` or `1Gi-2Gi` (the `In` operators accept them). */
export function isRangePattern(pattern: string): boolean {
  return operatorOf(pattern) === 'range';
}

function singlePatternMatches(value: JsonValue, pattern: string): boolean {
  const op = operatorOf(pattern);
  if (op === 'range') {
    const [, low, high] = RANGE.exec(pattern)!;
    return singlePatternMatches(value, `>=${low}`) && singlePatternMatches(value, `<=${high}`);
  }
  if (op === 'notRange') {
    const [, low, high] = NOT_RANGE.exec(pattern)!;
    return singlePatternMatches(value, `<${low}`) || singlePatternMatches(value, `>${high}`);
  }
  const operand = goTrimSpace(pattern.slice(op.length)); // strings.TrimSpace (Go's spaces)
  // pattern.validateString: durations first, then quantities, then text (which only = and ! compare).
  return compare(durationsOf(value, operand), op) ?? compare(quantitiesOf(value, operand), op) ?? stringMatches(value, operand, op);
}

/** convertNumberToString: how a value is read as a duration or a quantity (null is "0"). */
function numberText(value: JsonValue): string | undefined {
  if (value === null) return '0';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(6);
  return undefined;
}

/** The value's comparison with the pattern when both read as Go durations. */
function durationsOf(value: JsonValue, pattern: string): number | undefined {
  const expected = tryParseDuration(pattern);
  if (expected === undefined) return undefined;
  const text = numberText(value);
  const actual = text === undefined ? undefined : tryParseDuration(text);
  return actual === undefined ? undefined : actual < expected ? -1 : actual > expected ? 1 : 0;
}

/** The value's comparison with the pattern when both read as quantities. */
function quantitiesOf(value: JsonValue, pattern: string): number | undefined {
  const expected = tryParseQuantity(pattern);
  if (!expected) return undefined;
  const text = numberText(value);
  const actual = text === undefined ? undefined : tryParseQuantity(text);
  return actual ? compareQuantities(actual, expected) : undefined;
}

function compare(c: number | undefined, op: Operator): boolean | undefined {
  if (c === undefined) return undefined;
  switch (op) {
    case '':
      return c === 0;
    case '!':
      return c !== 0;
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    default:
      return undefined;
  }
}

/** compareString: text compared as a wildcard, for `=` and `!` only. */
function stringMatches(value: JsonValue, pattern: string, op: Operator): boolean {
  if (op !== '' && op !== '!') return false; // >, <, … are not defined on strings
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number') text = Number.isInteger(value) ? String(value) : formatFloatE(value);
  else if (typeof value === 'boolean') text = String(value);
  else return false;
  const matched = wildcardMatch(pattern, text);
  return op === '!' ? !matched : matched;
}
