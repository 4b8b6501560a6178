/**
 * Go's two ways of quoting a string in messages: `strconv.Quote` (what `%q` and `%#v` print) and the
 * `time` package's own `quote` (used in time.Parse and time.ParseDuration errors).
 */

const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. Made on first use:
// V8 spends about a millisecond building a \p{…} class, which every cold start would pay at module load.
let printable: RegExp | undefined;
const isPrintable = (ch: string): boolean => (printable ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u).test(ch);

/** Go's one-letter escapes (also what CEL's strings.quote writes). */
export const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

const hex = (c: number, width: number) => c.toString(16).padStart(width, '0');

/** strconv.Quote: a double-quoted Go string literal; unprintable runes as `\x`, `\u` or `\U` escapes. */
export function strconvQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c === 0x7f) out += `\\x${hex(c, 2)}`;
    else if (c < 0x7f) out += ch;
    // A lone surrogate has no Go counterpart; Go's decoder would have read it as U+FFFD.
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (isPrintable(ch)) out += ch;
    else if (c < 0x10000) out += `\\u${hex(c, 4)}`;
    else out += `\\U${hex(c, 8)}`;
  }
  return `${out}"`;
}

const utf8 = new TextEncoder();

/**
 * The time package's quote: `"` and `\` escaped, every byte of a rune below U+0020 or above U+007F
 * written as `\xHH` (Go does not reproduce strconv.Quote there).
 */
export function timeQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c < 0x80) out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    else for (const byte of utf8.encode(ch)) out += `\\x${hex(byte, 2)}`;
  }
  return `${out}"`;
}
