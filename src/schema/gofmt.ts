import { compareStrings, formatFloatG, goSprint, strconvQuote } from '../go/index.js';
import { GoNative } from '../go/index.js';
import type { JsonValue } from '../json/index.js';

/**
 * Go fmt renderings of JSON values as they appear inside structured-merge-diff and encoding/json error
 * messages (SMD prints its value wrapper with %v and %#v), so our messages read like the API server's.
 */

/**
 * Go %v of a number in an unstructured value: an integer is an int64 there, anything else a float64
 * (printed as strconv 'g' shortest).
 */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? String(n) : formatFloatG(n);
}

/** Go %v of the plain value (`map[a:1 b:x]`, `[a b]`, `<nil>`). */
function goV(v: JsonValue): string {
  return goSprint(v, undefined, goNumber);
}

/** Go %#v of the plain value inside an interface{}. */
function goSharpV(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return strconvQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[]interface {}{' + v.map(goSharpV).join(', ') + '}';
  return 'map[string]interface {}{' + Object.keys(v).sort(compareStrings).map((k) => `${strconvQuote(k)}:${goSharpV(v[k])}`).join(', ') + '}';
}

/** Go %T of the value's unstructured form. */
export function goTypeName(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (v instanceof GoNative) return v.goType;
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** SMD's value wrapper printed with %v: `&{x}`. */
export function smdV(v: JsonValue): string {
  if (v instanceof GoNative) return '&{' + v.v + '}';
  return '&{' + goV(v) + '}';
}

/** SMD's value wrapper printed with %#v. */
export function smdSharpV(v: JsonValue): string {
  if (v instanceof GoNative) return '&value.valueUnstructured{Value:' + v.sharpV + '}';
  return '&value.valueUnstructured{Value:' + goSharpV(v) + '}';
}
