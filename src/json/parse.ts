import { markExactInteger, unmarkExactInteger } from './exact-integers.js';
import { markFloatLiteral, unmarkFloatLiteral } from './float-literals.js';
import { hasOwn, setOwn } from './own.js';
import type { JsonArray, JsonObject, JsonValue } from './types.js';

export interface ParseJsonOptions {
  /** Deepest nesting of arrays/objects accepted; deeper documents are refused before parsing. */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 1000;

export class JsonParseError extends Error {
  override name = 'JsonParseError';
}

/**
 * `JSON.parse` with the things an admission webhook needs on top: a depth limit (every later walk is
 * recursive, so a hostile 100 000-deep document must be refused here), the int/double distinction of
 * the source text (see float-literals.ts) and the exact value of an int64 past ±2^53 (exact-integers.ts).
 * The common document takes the native parser after two native-speed checks (see `needsExactScan`); a
 * document that may hold an integral float literal, an integer past ±2^53 or a number past the double
 * range, or that has enough brackets to be too deep, gets the exact character scan, and only a document
 * that really holds one of those numbers takes the slower exact parser.
 *
 * A number past the double range (`1e999`, 400 digits) is refused, where `JSON.parse` reads ±Infinity:
 * Go's encoding/json refuses it (strconv's range error), so the API server never sends one, and the
 * engines would fail on it later. One too small (`1e-400`) reads as 0, as strconv.ParseFloat reads it.
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const needsExactParser = needsExactScan(text, maxDepth) && prescan(text, maxDepth);
  if (!needsExactParser) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch (err) {
      throw faultIn(text) ?? new JsonParseError((err as Error).message);
    }
  }
  return new ExactParser(text).parseDocument();
}

/**
 * The fault of a text the native parser refused, found and worded by the exact parser: V8 words its
 * errors differently from version to version (Node 20, Node 24 and workerd each have their own), and a
 * review must get the same answer on every runtime. The exact parser's depth is bounded here too: the
 * native parser ran only because the text holds at most `maxDepth` brackets.
 */
function faultIn(text: string): JsonParseError | undefined {
  try {
    new ExactParser(text).parseDocument();
    return undefined;
  } catch (err) {
    if (err instanceof JsonParseError) return err;
    throw err;
  }
}

const QUOTE = 0x22, BACKSLASH = 0x5c, OPEN_BRACE = 0x7b, OPEN_BRACKET = 0x5b, CLOSE_BRACE = 0x7d, CLOSE_BRACKET = 0x5d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNumberChar(c: number): boolean {
  return isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/**
 * Whether the exact scan below is needed, decided with native string search instead of a JavaScript
 * loop over every character (the exact scan costs about 60% of `JSON.parse` on a 4 KB review):
 *
 * - Depth: a document cannot nest deeper than the number of `{` and `[` it holds, strings included.
 * - Numbers: the exact parser must see an integral float literal in a container, an integer past ±2^53
 *   or a number past the double range. Two searches find every place that may hold one (a string can
 *   hold text of that shape too, `"a:1.0,"`: then the exact scan decides, so they never miss a literal
 *   and only cost time on such rare strings): `separatorSearch` from each `:`, `,` and `[` by `indexOf`,
 *   `digitSearch` with a regular expression and a stride over the digits.
 *
 * Which is cheaper depends on the text (cachegrind, Node 20): the regular expression costs ~10-17
 * instructions per character (irregexp tries a match at each digit), `indexOf` ~300 per separator found.
 * A review is mostly structure (a 4 KB Pod: a separator every ~11 characters; `digitSearch`, 52 k
 * instructions, 21% of its JSON.parse), a large ConfigMap mostly string (200 KB with a separator every
 * ~230 characters: `digitSearch` 3.5 M instructions, 2.1× its JSON.parse; `separatorSearch` 0.3 M). The
 * brackets counted first tell which a text is; one that turns out denser than they said goes on with
 * `digitSearch` once the separators found cost a quarter of what it does.
 */
function needsExactScan(text: string, maxDepth: number): boolean {
  let open = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++open > maxDepth) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++open > maxDepth) return true;
  const budget = text.length / CHARACTERS_PER_SEPARATOR;
  if (open * SEPARATORS_PER_BRACKET < budget) {
    const found = separatorSearch(text, budget);
    if (found !== undefined) return found;
  }
  return digitSearch(text);
}

/**
 * The separators `indexOf` may find before `digitSearch` takes over: a text denser than the brackets said
 * costs at most ~25% more than `digitSearch` alone (a ConfigMap of 3,000 short members, 46 KB: +0.09 M).
 */
const CHARACTERS_PER_SEPARATOR = 128;
/** Separators a bracket brings with it at the least, in a review (its first members or elements). */
const SEPARATORS_PER_BRACKET = 4;

/**
 * In valid JSON a number in a container follows `:`, `,` or `[` (blanks aside); a document that is a bare
 * number has no container to mark but may overflow. The answer, or undefined once `budget` separators
 * are found.
 */
function separatorSearch(text: string, budget: number): boolean | undefined {
  let first = 0;
  while (isBlank(text.charCodeAt(first))) first++;
  const c = text.charCodeAt(first);
  if (isDigit(c) || c === MINUS) return true; // a bare number: the exact scan decides
  let found = 0;
  for (const separator of SEPARATORS) {
    for (let i = text.indexOf(separator); i !== -1; i = text.indexOf(separator, i + 1)) {
      if (++found > budget) return undefined;
      if (suspectNumberAt(text, i + 1)) return true;
    }
  }
  return false;
}

const SEPARATORS = ['[', ':', ','];

/**
 * - Integral floats: every number literal with a fraction or an exponent holds a digit followed by `.`,
 *   `e` or `E` and then a digit or sign. Each such place is widened to the number-like run around it;
 *   a number token in valid JSON is preceded by `:`, `,` or `[` and followed by `,`, `}` or `]` (blanks
 *   aside). A run that fits, and whose value is integral, may be an integral float literal. (A float at
 *   the top level has no container to mark, so it needs nothing.)
 * - Long integers: a literal past the double range has an exponent (found as above) or at least 309
 *   digits (10^308 is the first integer of 309), and an integer past ±2^53 has at least 16 digits; a
 *   run of 16 digits covers a multiple of 16: the run around each of those places that holds a digit is
 *   widened too. A run where a number token can stand (isIntegerToken) whose value is not a safe integer
 *   may be such a literal; one in a string cannot, and one with a fraction or an exponent is the float
 *   check's (which also finds a fraction or exponent after 309 digits).
 */
function digitSearch(text: string): boolean {
  const n = text.length;
  for (let i = UNSAFE_DIGITS - 1; i < n; i += UNSAFE_DIGITS) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) continue;
    let start = i;
    let end = i + 1;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= UNSAFE_DIGITS && isIntegerToken(text, start, end) && !Number.isSafeInteger(Number(text.slice(start, end)))) return true;
    while (i + UNSAFE_DIGITS < end) i += UNSAFE_DIGITS; // each run widened once
  }
  FLOAT_PART.lastIndex = 0;
  while (FLOAT_PART.test(text)) {
    let start = FLOAT_PART.lastIndex - 3;
    let end = FLOAT_PART.lastIndex;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    while (end < n && isNumberChar(text.charCodeAt(end))) end++;
    FLOAT_PART.lastIndex = end;
    let before = start - 1;
    while (before >= 0 && isBlank(text.charCodeAt(before))) before--;
    let after = end;
    while (after < n && isBlank(text.charCodeAt(after))) after++;
    const b = before < 0 ? -1 : text.charCodeAt(before);
    const a = after >= n ? -1 : text.charCodeAt(after);
    const inContainer = (b === COLON || b === COMMA || b === OPEN_BRACKET) && (a === COMMA || a === CLOSE_BRACE || a === CLOSE_BRACKET);
    if (!inContainer && b !== -1) continue; // in a string: no literal (b === -1: the top-level value, which may overflow)
    const value = Number(text.slice(start, end));
    if (overflows(value) || (inContainer && Number.isInteger(value))) return true;
  }
  return false;
}

/**
 * Whether the digits `text[start, end)` may be a whole integer token: where valid JSON puts a number
 * (after `:`, `,`, `[`, a minus sign, or nothing; before `,`, `}`, `]` or the end; blanks aside). Digits
 * in a string (a long id, a nanosecond timestamp) are not, and cost no exact scan; digits before a
 * fraction or an exponent are the float check's.
 */
function isIntegerToken(text: string, start: number, end: number): boolean {
  let before = start - 1;
  if (before >= 0 && text.charCodeAt(before) === MINUS) before--;
  while (before >= 0 && isBlank(text.charCodeAt(before))) before--;
  let after = end;
  while (after < text.length && isBlank(text.charCodeAt(after))) after++;
  const b = before < 0 ? -1 : text.charCodeAt(before);
  const a = after >= text.length ? -1 : text.charCodeAt(after);
  return (b === -1 || b === COLON || b === COMMA || b === OPEN_BRACKET) && (a === -1 || a === COMMA || a === CLOSE_BRACE || a === CLOSE_BRACKET);
}

/** A digit, then what only a fraction or an exponent puts after one. */
const FLOAT_PART = /[0-9][.eE][-+0-9]/g;

/**
 * Whether a number token that starts at `i` (blanks aside) may need the exact parser: an integral float,
 * an integer of 16 digits or more that is not a safe integer, or a value past the double range.
 */
function suspectNumberAt(text: string, i: number): boolean {
  let c = text.charCodeAt(i);
  while (isBlank(c)) c = text.charCodeAt(++i);
  const start = i;
  if (c === MINUS) c = text.charCodeAt(++i);
  if (!isDigit(c)) return false;
  let float = false;
  for (c = text.charCodeAt(++i); isNumberChar(c); c = text.charCodeAt(++i)) {
    if (c === 0x2e || c === 0x65 || c === 0x45) float = true;
  }
  const end = i;
  if (!float && end - start < UNSAFE_DIGITS) return false;
  while (isBlank(c)) c = text.charCodeAt(++i);
  if (c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET) return false; // in a string: no literal
  const value = Number(text.slice(start, end));
  return float ? Number.isInteger(value) || overflows(value) : !Number.isSafeInteger(value);
}

/** The fewest digits of an integer past ±2^53 (9007199254740993 has 16). */
const UNSAFE_DIGITS = 16;

const overflows = (value: number) => value === Infinity || value === -Infinity;
const COLON = 0x3a, COMMA = 0x2c, MINUS = 0x2d;

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Checks the nesting depth; returns whether any number literal is a float with an integral value, an
 * integer past ±2^53, or past the double range (the exact parser marks the first two, refuses the last).
 */
function prescan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let needsExactParser = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) throw new JsonParseError(`JSON nesting deeper than ${maxDepth} levels`);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (!needsExactParser && ((c >= 0x30 && c <= 0x39) || c === 0x2d)) {
      let j = i + 1;
      let isFloat = false;
      while (j < n && isNumberChar(text.charCodeAt(j))) {
        const d = text.charCodeAt(j);
        if (d === 0x2e || d === 0x65 || d === 0x45) isFloat = true;
        j++;
      }
      if (isFloat || j - i >= UNSAFE_DIGITS) {
        const value = Number(text.slice(i, j));
        needsExactParser = isFloat ? Number.isInteger(value) || overflows(value) : !Number.isSafeInteger(value);
      }
      i = j - 1;
    }
  }
  return needsExactParser;
}

/** A number literal for a message: a long one cut, with its length. */
export function shownNumberLiteral(literal: string): string {
  return literal.length <= 32 ? literal : `${literal.slice(0, 16)}… (${literal.length} characters)`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
/** A JSON escape where lastIndex stands: one of the nine letters, or `u` and four hex digits. */
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** A character for a message: as itself, or escaped when it would not show (controls, a BOM, a lone surrogate). */
function shownCharacter(ch: string): string {
  const code = ch.codePointAt(0)!;
  const invisible = code < 0x20 || code === 0x7f || code === 0xfeff || (code >= 0xd800 && code <= 0xdfff);
  if (!invisible) return ch;
  const escaped = JSON.stringify(ch).slice(1, -1); // \n, \u0000, \ud800; a BOM and DEL stay as they are
  return escaped.startsWith('\\') ? escaped : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A small recursive-descent parser (depth already bounded: by the prescan, or for a refused text by its brackets) that marks float literals. */
class ExactParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const value = this.value(undefined, 0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.unexpected('the end after the JSON value');
    return value;
  }

  private fail(message: string): never {
    throw new JsonParseError(`${message} at position ${this.pos}`);
  }

  /** What is wrong at `this.pos`: the end of the text, or the character there, quoted and escaped. */
  private unexpected(expected?: string): never {
    if (this.pos >= this.text.length) throw new JsonParseError('Unexpected end of JSON input');
    const shown = shownCharacter(String.fromCodePoint(this.text.codePointAt(this.pos)!));
    return this.fail(`Unexpected character '${shown}'${expected ? `, expected ${expected},` : ''}`);
  }

  private skipWhitespace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  private value(container: object | undefined, key: string | number): JsonValue {
    this.skipWhitespace();
    const t = this.text;
    const c = t[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (t.startsWith('true', this.pos)) return (this.pos += 4), true;
    if (t.startsWith('false', this.pos)) return (this.pos += 5), false;
    if (t.startsWith('null', this.pos)) return (this.pos += 4), null;
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(t);
    if (!m) this.unexpected('a JSON value');
    const num = Number(m[0]);
    if (overflows(num)) this.fail(`Number ${shownNumberLiteral(m[0])} is out of the range of a double`);
    this.pos += m[0].length;
    if (container) {
      if (m[1] || m[2]) {
        if (Number.isInteger(num)) markFloatLiteral(container, key);
      } else if (!Number.isSafeInteger(num)) {
        const exact = BigInt(m[0]);
        // Past int64, Go's decoder reads a float64 too (Kubernetes' unstructured JSON: Int64, else Float64).
        if (exact >= INT64_MIN && exact <= INT64_MAX) markExactInteger(container, key, exact);
      }
    }
    return num;
  }

  /**
   * A string literal: its end found by a loop (a regular expression over its characters kept one
   * backtracking entry per `\\u` escape and overflowed the stack on a million of them, 6 MB of `\\u003c`),
   * its escapes read by JSON.parse, which also refuses a bad one.
   */
  private string(): string {
    const t = this.text;
    const start = this.pos;
    let escaped = false;
    let i = start + 1;
    for (;;) {
      if (i >= t.length) {
        this.pos = t.length;
        this.unexpected();
      }
      const c = t.charCodeAt(i);
      if (c === QUOTE) break;
      if (c < 0x20) {
        this.pos = i;
        this.fail(`Bad control character '${shownCharacter(t[i])}' in string literal`);
      }
      if (c === BACKSLASH) {
        escaped = true;
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(t)) {
          this.pos = i;
          this.fail(`Bad escape ${JSON.stringify(t.slice(i, t[i + 1] === 'u' ? i + 6 : i + 2))} in string literal`);
        }
        i += 2;
      } else i++;
    }
    this.pos = i + 1;
    if (!escaped) return t.slice(start + 1, i);
    return JSON.parse(t.slice(start, i + 1)) as string; // its escapes checked above
  }

  private object(): JsonObject {
    const out: JsonObject = {};
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] === '}') return this.pos++, out;
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.unexpected('a property name');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.unexpected("':'");
      this.pos++;
      // A repeated key: its last value wins, typed by its own literal, not the one it replaces.
      if (hasOwn(out, key)) {
        unmarkFloatLiteral(out, key);
        unmarkExactInteger(out, key);
      }
      setOwn(out, key, this.value(out, key));
      this.skipWhitespace();
      const sep = this.text[this.pos];
      if (sep !== ',' && sep !== '}') this.unexpected("',' or '}'");
      this.pos++;
      if (sep === '}') return out;
    }
  }

  private array(): JsonArray {
    const out: JsonArray = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] === ']') return this.pos++, out;
    for (;;) {
      out.push(this.value(out, out.length));
      this.skipWhitespace();
      const sep = this.text[this.pos];
      if (sep !== ',' && sep !== ']') this.unexpected("',' or ']'");
      this.pos++;
      if (sep === ']') return out;
    }
  }
}
