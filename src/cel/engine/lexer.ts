/**
 * CEL tokenizer (the lexical rules of cel-spec's CEL.g4): identifiers, int/uint/double literals,
 * quoted/raw/triple-quoted strings and bytes with CEL escapes, operators, `//` comments.
 */
import { CelUint } from './values.js';

export const enum Tok {
  EOF,
  Ident,
  EscIdent,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  True,
  False,
  Null,
  In,
  // punctuation / operators
  Dot,
  Comma,
  Colon,
  Question,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Not,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  Eq,
  NotEq,
  And,
  Or,
}

export interface Token {
  tok: Tok;
  pos: number;
  end: number;
  /** Identifier name, string text, bytes, or number value. */
  value?: string | bigint | number | Uint8Array | CelUint;
}

export class LexError extends Error {
  constructor(
    message: string,
    readonly pos: number,
    /** A grammar error ('Syntax error: ...'); false for a literal the grammar takes but cel-go cannot unescape. */
    readonly syntax = true,
    /** For a grammar error, where ANTLR's lexer goes on: after the character no rule took. */
    readonly resume = -1,
  ) {
    super(message);
  }
}

const TOKEN_TEXT: Record<number, string> = {
  [Tok.EOF]: '<EOF>',
  [Tok.Dot]: '.',
  [Tok.Comma]: ',',
  [Tok.Colon]: ':',
  [Tok.Question]: '?',
  [Tok.LParen]: '(',
  [Tok.RParen]: ')',
  [Tok.LBracket]: '[',
  [Tok.RBracket]: ']',
  [Tok.LBrace]: '{',
  [Tok.RBrace]: '}',
  [Tok.Plus]: '+',
  [Tok.Minus]: '-',
  [Tok.Star]: '*',
  [Tok.Slash]: '/',
  [Tok.Percent]: '%',
  [Tok.Not]: '!',
  [Tok.Less]: '<',
  [Tok.LessEq]: '<=',
  [Tok.Greater]: '>',
  [Tok.GreaterEq]: '>=',
  [Tok.Eq]: '==',
  [Tok.NotEq]: '!=',
  [Tok.And]: '&&',
  [Tok.Or]: '||',
  [Tok.True]: 'true',
  [Tok.False]: 'false',
  [Tok.Null]: 'null',
  [Tok.In]: 'in',
};

export function tokenText(t: Token, source: string): string {
  return TOKEN_TEXT[t.tok] ?? source.slice(t.pos, t.end);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}
function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}
function isEscIdentPart(c: number): boolean {
  return isIdentPart(c) || c === 46 || c === 45 || c === 47 || c === 32;
}

/**
 * The tokens of `src`, ending with EOF. Given `skipped`, a grammar error is recorded there and lexing
 * goes on after it, as ANTLR's lexer reports what no rule takes and skips it (cel-go's parser then
 * reads the tokens left); without, it is thrown. An escape cel-go cannot unescape is always thrown.
 */
export function tokenize(src: string, skipped?: LexError[]): Token[] {
  const out: Token[] = [];
  let i = 0;
  for (;;) {
    try {
      scan(src, i, out);
      break;
    } catch (e) {
      if (!skipped || !(e instanceof LexError) || !e.syntax) throw e;
      skipped.push(e);
      i = e.resume;
    }
  }
  out.push({ tok: Tok.EOF, pos: src.length, end: src.length });
  return out;
}

/** Reads tokens from `from` to the end of `src` onto `out`. */
function scan(src: string, from: number, out: Token[]): void {
  const n = src.length;
  let i = from;
  while (i < n) {
    const c = src.charCodeAt(i);
    // whitespace: space, \t, \n, \r, \f
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
      i++;
      continue;
    }
    if (c === 47 && src.charCodeAt(i + 1) === 47) {
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      // string prefixes: r"..", b"..", br"..", rb is not allowed by the grammar
      const c1 = src.charCodeAt(i + 1);
      const lower = c | 0x20;
      if ((lower === 114 || lower === 98) && (c1 === 34 || c1 === 39)) {
        i = readQuoted(src, i + 1, start, lower === 114, lower === 98, out);
        continue;
      }
      if (lower === 98 && (c1 | 0x20) === 114 && (src.charCodeAt(i + 2) === 34 || src.charCodeAt(i + 2) === 39)) {
        i = readQuoted(src, i + 2, start, true, true, out);
        continue;
      }
      while (i < n && isIdentPart(src.charCodeAt(i))) i++;
      const word = src.slice(start, i);
      let tok = Tok.Ident;
      if (word === 'true') tok = Tok.True;
      else if (word === 'false') tok = Tok.False;
      else if (word === 'null') tok = Tok.Null;
      else if (word === 'in') tok = Tok.In;
      out.push({ tok, pos: start, end: i, value: word });
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
      const t = readNumber(src, i);
      out.push(t);
      i = t.end;
      continue;
    }
    if (c === 34 || c === 39) {
      i = readQuoted(src, i, start, false, false, out);
      continue;
    }
    if (c === 96) {
      // `escaped identifier` for field names: ESC_IDENTIFIER : '`' (LETTER | DIGIT | '_' | '.' | '-' | '/' | ' ')+ '`'
      let j = i + 1;
      while (j < n && isEscIdentPart(src.charCodeAt(j))) j++;
      if (j === i + 1 || src.charCodeAt(j) !== 96) throw recognitionError(src, i, j);
      out.push({ tok: Tok.EscIdent, pos: i, end: j + 1, value: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const two = src.slice(i, i + 2);
    let tok: Tok | undefined;
    let len = 2;
    switch (two) {
      case '<=':
        tok = Tok.LessEq;
        break;
      case '>=':
        tok = Tok.GreaterEq;
        break;
      case '==':
        tok = Tok.Eq;
        break;
      case '!=':
        tok = Tok.NotEq;
        break;
      case '&&':
        tok = Tok.And;
        break;
      case '||':
        tok = Tok.Or;
        break;
    }
    if (tok === undefined) {
      len = 1;
      switch (src[i]) {
        case '.':
          tok = Tok.Dot;
          break;
        case ',':
          tok = Tok.Comma;
          break;
        case ':':
          tok = Tok.Colon;
          break;
        case '?':
          tok = Tok.Question;
          break;
        case '(':
          tok = Tok.LParen;
          break;
        case ')':
          tok = Tok.RParen;
          break;
        case '[':
          tok = Tok.LBracket;
          break;
        case ']':
          tok = Tok.RBracket;
          break;
        case '{':
          tok = Tok.LBrace;
          break;
        case '}':
          tok = Tok.RBrace;
          break;
        case '+':
          tok = Tok.Plus;
          break;
        case '-':
          tok = Tok.Minus;
          break;
        case '*':
          tok = Tok.Star;
          break;
        case '/':
          tok = Tok.Slash;
          break;
        case '%':
          tok = Tok.Percent;
          break;
        case '!':
          tok = Tok.Not;
          break;
        case '<':
          tok = Tok.Less;
          break;
        case '>':
          tok = Tok.Greater;
          break;
      }
    }
    if (tok === undefined) {
      // '&', '|' and '=' begin '&&', '||' and '==': the lexer fails at the character after them.
      throw recognitionError(src, i, c === 38 || c === 124 || c === 61 ? i + 1 : i);
    }
    out.push({ tok, pos: i, end: i + len });
    i += len;
  }
}

function readNumber(src: string, start: number): Token {
  const n = src.length;
  let i = start;
  // Hex literals take a lowercase x only (cel-go's CEL.g4 NUM_INT: '0x' HEXDIGIT+): 0X10 is 0 then X10.
  if (src[i] === '0' && src[i + 1] === 'x' && isHex(src.charCodeAt(i + 2))) {
    i += 2;
    while (i < n && isHex(src.charCodeAt(i))) i++;
    const digits = src.slice(start + 2, i);
    if (src[i] === 'u' || src[i] === 'U') {
      return { tok: Tok.Uint, pos: start, end: i + 1, value: `0x${digits}` };
    }
    return { tok: Tok.Int, pos: start, end: i, value: `0x${digits}` };
  }
  let isFloat = false;
  while (i < n && isDigit(src.charCodeAt(i))) i++;
  if (src[i] === '.' && isDigit(src.charCodeAt(i + 1))) {
    isFloat = true;
    i++;
    while (i < n && isDigit(src.charCodeAt(i))) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (isDigit(src.charCodeAt(j))) {
      isFloat = true;
      i = j;
      while (i < n && isDigit(src.charCodeAt(i))) i++;
    }
  }
  const text = src.slice(start, i);
  if (isFloat) return { tok: Tok.Double, pos: start, end: i, value: text };
  if (src[i] === 'u' || src[i] === 'U') return { tok: Tok.Uint, pos: start, end: i + 1, value: text };
  return { tok: Tok.Int, pos: start, end: i, value: text };
}

/**
 * ANTLR's lexer error (cel-go's grammar): at the start of the token it was reading, the text from there
 * through the first character no rule takes (`fail`, src.length at the end of the input), e.g.
 * `token recognition error at: ''^\d'` for '^\d+'.
 */
function recognitionError(src: string, start: number, fail: number): LexError {
  const end = fail >= src.length ? src.length : fail + ((src.codePointAt(fail) ?? 0) > 0xffff ? 2 : 1);
  return new LexError(`token recognition error at: '${src.slice(start, end)}'`, start, true, end);
}

/**
 * Reads a (possibly triple-) quoted string whose quote is at `i`, its prefix (b, r, br) from
 * `tokenStart`, onto `out`; returns the offset after what it read. A literal the grammar refuses (a
 * line break in a one-line literal, an escape no ESC_SEQ takes, no closing quote) ends where ANTLR's
 * lexer ends it: at its longest match, the empty literal of a triple quote's first two quotes or the
 * prefix as an identifier, and lexing goes on after it; without one it is a recognition error.
 */
function readQuoted(src: string, i: number, tokenStart: number, raw: boolean, bytes: boolean, out: Token[]): number {
  const quote = src[i];
  const triple = src[i + 1] === quote && src[i + 2] === quote;
  const open = triple ? 3 : 1;
  let j = i + open;
  const n = src.length;
  let fail = -1;
  for (;;) {
    if (j >= n) {
      fail = n;
      break;
    }
    const ch = src[j];
    if (!triple && (ch === '\n' || ch === '\r')) {
      fail = j;
      break;
    }
    if (ch === '\\' && !raw) {
      const end = escapeEnd(src, j);
      if (end < 0) {
        fail = -end - 1;
        break;
      }
      j = end;
      continue;
    }
    if (ch === quote && (!triple || (src[j + 1] === quote && src[j + 2] === quote))) break;
    j++;
  }
  if (fail >= 0) {
    if (triple) {
      out.push({ tok: bytes ? Tok.Bytes : Tok.String, pos: tokenStart, end: i + 2, value: bytes ? new Uint8Array(0) : '' });
      return i + 2;
    }
    if (i > tokenStart) {
      out.push({ tok: Tok.Ident, pos: tokenStart, end: i, value: src.slice(tokenStart, i) });
      return i;
    }
    throw recognitionError(src, tokenStart, fail);
  }
  const body = src.slice(i + open, j);
  const end = j + open;
  if (bytes) {
    const value = raw ? utf8Encode(normalizeNewlines(body)) : unescapeBytes(body, tokenStart);
    out.push({ tok: Tok.Bytes, pos: tokenStart, end, value });
  } else {
    const value = raw ? normalizeNewlines(body) : unescapeString(body, tokenStart);
    out.push({ tok: Tok.String, pos: tokenStart, end, value });
  }
  return end;
}

/**
 * The offset after the escape sequence whose backslash is at `j` (CEL.g4 ESC_SEQ), or -(f + 1) for the
 * offset f of the first character it cannot take.
 */
function escapeEnd(src: string, j: number): number {
  const e = src[j + 1];
  if (e !== undefined && e in SIMPLE_ESCAPES) return j + 2;
  let count: number;
  let digit: (c: number) => boolean = isHex;
  if (e === 'x' || e === 'X') count = 2;
  else if (e === 'u') count = 4;
  else if (e === 'U') count = 8;
  else if (e !== undefined && e >= '0' && e <= '3') {
    count = 2;
    digit = isOctal;
  } else return -(j + 1) - 1;
  for (let k = j + 2; k < j + 2 + count; k++) if (!digit(src.charCodeAt(k))) return -k - 1;
  return j + 2 + count;
}

function isOctal(c: number): boolean {
  return c >= 48 && c <= 55;
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '`': 96,
  '?': 63,
};

/**
 * cel-go reads every line break of a literal as \n (\r\n and a lone \r: parser/unescape.go), before
 * escapes, so an escaped `\r` stays; only a triple-quoted literal can hold a line break unescaped.
 */
function normalizeNewlines(body: string): string {
  return body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
}

/**
 * Processes the escapes of a string literal body (readQuoted took only those the grammar takes); code
 * points are pushed via `emit`. One cel-go's unescape refuses (a surrogate or out-of-range code point,
 * `\u` in bytes) is reported as cel-go's parser reports it: the unescape error's text alone, at the
 * literal (`tokenStart`).
 */
function unescapeInto(body: string, tokenStart: number, bytes: boolean, emit: (cp: number, isByte: boolean) => void): void {
  let i = 0;
  while (i < body.length) {
    const ch = body[i];
    if (ch === '\r') {
      emit(10, false);
      i += body[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    if (ch !== '\\') {
      const cp = body.codePointAt(i)!;
      emit(cp, false);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    // readQuoted took only escapes the grammar takes.
    const e = body[i + 1];
    if (e in SIMPLE_ESCAPES) {
      emit(SIMPLE_ESCAPES[e], bytes);
      i += 2;
      continue;
    }
    if (e === 'x' || e === 'X') {
      emit(parseInt(body.slice(i + 2, i + 4), 16), bytes);
      i += 4;
      continue;
    }
    if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      const h = body.slice(i + 2, i + 2 + len);
      if (bytes) throw new LexError('unable to unescape string', tokenStart, false);
      const cp = parseInt(h, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new LexError('invalid unicode code point', tokenStart, false);
      emit(cp, false);
      i += 2 + len;
      continue;
    }
    emit(parseInt(body.slice(i + 1, i + 4), 8), bytes);
    i += 4;
  }
}

function unescapeString(body: string, tokenStart: number): string {
  if (!body.includes('\\')) return normalizeNewlines(body);
  let out = '';
  unescapeInto(body, tokenStart, false, (cp) => {
    out += String.fromCodePoint(cp);
  });
  return out;
}

function unescapeBytes(body: string, tokenStart: number): Uint8Array {
  const bytes: number[] = [];
  unescapeInto(body, tokenStart, true, (cp, isByte) => {
    if (isByte) bytes.push(cp);
    else pushUtf8(bytes, cp);
  });
  return Uint8Array.from(bytes);
}

function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

function utf8Encode(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
