/**
 * How Go prints values, where Kyverno's behaviour depends on it: `fmt.Sprint` (the `In` operator
 * families compare values as printed strings) and `json.Marshal` (a non-string variable embedded in a
 * longer string is inserted as compact JSON with sorted keys and HTML-safe escapes).
 */
import type { JsonObject, JsonValue } from '../json/index.js';

/** `fmt.Sprint(v)` of a value decoded from JSON (numbers are float64 in Go). */
export function goSprint(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFormatFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goSprint).join(' ')}]`;
  const keys = Object.keys(value).sort();
  return `map[${keys.map((k) => `${k}:${goSprint((value as JsonObject)[k])}`).join(' ')}]`;
}

/** `strconv.FormatFloat(f, 'g', -1, 64)`, the `%v` form: exponent form from 1e+06 on. */
export function goFormatFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  const sign = n < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const HAS_HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `json.Marshal(v)`: compact, object keys sorted, `<`, `>`, `&` escaped as Go does. */
export function goJsonMarshal(value: JsonValue): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  const text = JSON.stringify(sortKeys(value));
  return HAS_HTML_UNSAFE.test(text) ? text.replace(HTML_UNSAFE, (c) => HTML_ESCAPES[c]) : text;
}

function sortKeys(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, { value: sortKeys(value[key]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
