import type { JsonValue } from '../json/index.js';

/**
 * Go fmt renderings of JSON values as they appear inside structured-merge-diff and encoding/json error
 * messages (SMD prints its value wrapper with %v and %#v), so our messages read like the API server's.
 */

const NEEDS_ESCAPE = /["\\\x00-\x1f\x7f]/;

/** Go `strconv.Quote` for the common case (printable text; control characters escaped). */
export function goQuote(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

/** Go %v of a float64/int64 held in an interface (exponent form the way Go's %v prints it). */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  // JS writes 1e+21 / 1e-7; Go writes 1e+21 / 1e-07 (at least two exponent digits).
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go %v of the plain value (`map[a:1 b:x]`, `[a b]`, `<nil>`). */
export function goV(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(goV).join(' ') + ']';
  return 'map[' + Object.keys(v).sort().map((k) => `${k}:${goV(v[k])}`).join(' ') + ']';
}

/** Go %#v of the plain value inside an interface{}. */
export function goSharpV(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[]interface {}{' + v.map(goSharpV).join(', ') + '}';
  return 'map[string]interface {}{' + Object.keys(v).sort().map((k) => `${goQuote(k)}:${goSharpV(v[k])}`).join(', ') + '}';
}

/** Go %T of the value's unstructured form. */
export function goTypeName(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** SMD's value wrapper printed with %v: `&{x}`. */
export function smdV(v: JsonValue): string {
  return '&{' + goV(v) + '}';
}

/** SMD's value wrapper printed with %#v. */
export function smdSharpV(v: JsonValue): string {
  return '&value.valueUnstructured{Value:' + goSharpV(v) + '}';
}
