/**
 * JSON text exactly as Go's `encoding/json.Marshal` writes a decoded document: compact, map keys in
 * byte order, `<` `>` `&` U+2028 U+2029 escaped, invalid UTF-16 (lone surrogates) as U+FFFD. Kyverno's
 * `to_string` and its variable substitution inside longer strings both produce this text.
 */
import type { ReviewGuard } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { goJsonNumber } from './float.js';
import { compareStrings } from './string-order.js';

const HEX = '0123456789abcdef';

function needsEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) return true;
    if (c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/** encoding/json's string literal (HTML-safe escapes, U+2028/U+2029, lone surrogates as U+FFFD). */
export function jsonString(s: string): string {
  if (!needsEscape(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
    }
    if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) {
      out += `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    } else if (c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16)}`;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else {
        out += '\\ufffd';
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      out += '\\ufffd';
    } else {
      out += s[i];
    }
  }
  return out + '"';
}

/**
 * Go encoding/json.Marshal of a decoded JSON value. Throws on NaN/Infinity like Go does. With a
 * `guard`, the text is counted as it is written and stops at the guard's size bound (a value sharing
 * subtrees can be exponentially longer as text than in memory), and the deadline is ticked per node.
 */
export function goJsonStringify(value: JsonValue, guard?: ReviewGuard): string {
  if (!guard) return stringify(value, undefined);
  return stringify(value, { guard, written: 0 });
}

interface Budget {
  readonly guard: ReviewGuard;
  written: number;
}

function counted(text: string, budget: Budget | undefined): string {
  if (budget) {
    budget.written += text.length;
    budget.guard.checkSize(budget.written, 'JSON text');
  }
  return text;
}

function stringify(value: JsonValue, budget: Budget | undefined): string {
  if (value === null) return counted('null', budget);
  switch (typeof value) {
    case 'string':
      return counted(jsonString(value), budget);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${value}`);
      return counted(goJsonNumber(value), budget);
    case 'boolean':
      return counted(value ? 'true' : 'false', budget);
  }
  budget?.guard.tick();
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + stringify(value[i], budget);
    return out + ']';
  }
  const keys = Object.keys(value).sort(compareStrings);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    out += (i ? ',' : '') + counted(jsonString(keys[i]), budget) + ':' + stringify(value[keys[i]], budget);
  }
  return out + '}';
}
