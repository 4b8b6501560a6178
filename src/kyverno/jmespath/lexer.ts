/**
 * Tokenizer for the original JMESPath grammar as go-jmespath (and Kyverno's fork) reads it.
 * Deliberately not the community edition: no `$`, no arithmetic operators, no `let`.
 * Token names are go-jmespath's, because they appear in its syntax error messages.
 */
import { JmesPathSyntaxError } from './errors.js';
import { decodeGoJson } from './json-text.js';

export type TokenType =
  | 'tUnknown'
  | 'tStar'
  | 'tDot'
  | 'tFilter'
  | 'tFlatten'
  | 'tLparen'
  | 'tRparen'
  | 'tLbracket'
  | 'tRbracket'
  | 'tLbrace'
  | 'tRbrace'
  | 'tOr'
  | 'tPipe'
  | 'tNumber'
  | 'tUnquotedIdentifier'
  | 'tQuotedIdentifier'
  | 'tComma'
  | 'tColon'
  | 'tLT'
  | 'tLTE'
  | 'tGT'
  | 'tGTE'
  | 'tEQ'
  | 'tNE'
  | 'tJSONLiteral'
  | 'tStringLiteral'
  | 'tCurrent'
  | 'tExpref'
  | 'tAnd'
  | 'tNot'
  | 'tEOF';

export interface Token {
  type: TokenType;
  value: string;
  position: number;
}

const SINGLE: Record<string, TokenType> = {
  '.': 'tDot',
  '*': 'tStar',
  ',': 'tComma',
  ':': 'tColon',
  '{': 'tLbrace',
  '}': 'tRbrace',
  ']': 'tRbracket',
  '(': 'tLparen',
  ')': 'tRparen',
  '@': 'tCurrent',
};

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Go's strconv.QuoteRuneToASCII, for the "Unknown char" message. */
function quoteRune(cp: number): string {
  if (cp >= 0x20 && cp < 0x7f && cp !== 0x27 && cp !== 0x5c) return `'${String.fromCodePoint(cp)}'`;
  if (cp === 0x27) return `'\\''`;
  if (cp === 0x5c) return `'\\\\'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
  if (named[cp]) return `'${named[cp]}'`;
  if (cp < 0x10000) return `'\\u${cp.toString(16).padStart(4, '0')}'`;
  return `'\\U${cp.toString(16).padStart(8, '0')}'`;
}

/** Scans to the closing `end`, skipping backslash-escaped characters; returns the raw body and the next offset. */
function scanUntil(expression: string, start: number, end: string): [string, number] {
  const n = expression.length;
  let j = start;
  while (j < n && expression[j] !== end) {
    if (expression[j] === '\\' && j + 1 < n) j++;
    j++;
  }
  if (j >= n) throw new JmesPathSyntaxError(`Unclosed delimiter: ${end}`, expression, n);
  return [expression.slice(start, j), j + 1];
}

export function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const n = expression.length;
  let i = 0;

  while (i < n) {
    const c = expression.charCodeAt(i);
    const ch = expression[i];
    if (isIdentStart(c)) {
      const start = i;
      i++;
      while (i < n && isIdentPart(expression.charCodeAt(i))) i++;
      tokens.push({ type: 'tUnquotedIdentifier', value: expression.slice(start, i), position: start });
      continue;
    }
    const single = SINGLE[ch];
    if (single !== undefined) {
      tokens.push({ type: single, value: ch, position: i });
      i++;
      continue;
    }
    if (ch === '-' || isDigit(c)) {
      const start = i;
      i++;
      while (i < n && isDigit(expression.charCodeAt(i))) i++;
      tokens.push({ type: 'tNumber', value: expression.slice(start, i), position: start });
      continue;
    }
    switch (ch) {
      case '[': {
        const next = expression[i + 1];
        if (next === '?') {
          tokens.push({ type: 'tFilter', value: '[?', position: i });
          i += 2;
        } else if (next === ']') {
          tokens.push({ type: 'tFlatten', value: '[]', position: i });
          i += 2;
        } else {
          tokens.push({ type: 'tLbracket', value: '[', position: i });
          i++;
        }
        continue;
      }
      case '"': {
        const start = i;
        const [raw, next] = scanUntil(expression, i + 1, '"');
        let decoded: unknown;
        try {
          // go-jmespath decodes it with json.Unmarshal (a lone surrogate's escape is U+FFFD) and
          // returns that error as it is.
          decoded = decodeGoJson(`"${raw}"`);
        } catch (e) {
          throw new JmesPathSyntaxError((e as Error).message, expression, start, false);
        }
        tokens.push({ type: 'tQuotedIdentifier', value: decoded as string, position: start });
        i = next;
        continue;
      }
      case "'": {
        // Raw string: only \' is an escape; every other backslash is kept as written.
        const start = i;
        let j = i + 1;
        let out = '';
        let chunk = j;
        for (;;) {
          if (j >= n) throw new JmesPathSyntaxError("Unclosed delimiter: '", expression, n);
          const cj = expression[j];
          if (cj === '\\' && expression[j + 1] === "'") {
            out += expression.slice(chunk, j) + "'";
            j += 2;
            chunk = j;
            continue;
          }
          if (cj === "'") break;
          j++;
        }
        out += expression.slice(chunk, j);
        tokens.push({ type: 'tStringLiteral', value: out, position: start });
        i = j + 1;
        continue;
      }
      case '`': {
        const start = i + 1;
        const [raw, next] = scanUntil(expression, i + 1, '`');
        tokens.push({ type: 'tJSONLiteral', value: raw.replaceAll('\\`', '`'), position: start });
        i = next;
        continue;
      }
      case '|':
        if (expression[i + 1] === '|') {
          tokens.push({ type: 'tOr', value: '||', position: i });
          i += 2;
        } else {
          tokens.push({ type: 'tPipe', value: '|', position: i });
          i++;
        }
        continue;
      case '<':
      case '>':
      case '!':
      case '=': {
        const two = expression[i + 1] === '=';
        const type: TokenType = two
          ? ({ '<': 'tLTE', '>': 'tGTE', '!': 'tNE', '=': 'tEQ' } as const)[ch]
          : ({ '<': 'tLT', '>': 'tGT', '!': 'tNot', '=': 'tUnknown' } as const)[ch];
        tokens.push({ type, value: two ? ch + '=' : ch, position: i });
        i += two ? 2 : 1;
        continue;
      }
      case '&':
        if (expression[i + 1] === '&') {
          tokens.push({ type: 'tAnd', value: '&&', position: i });
          i += 2;
        } else {
          tokens.push({ type: 'tExpref', value: '&', position: i });
          i++;
        }
        continue;
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        i++;
        continue;
      default: {
        const cp = expression.codePointAt(i) ?? c;
        throw new JmesPathSyntaxError(`Unknown char: ${quoteRune(cp)}`, expression, i);
      }
    }
  }
  tokens.push({ type: 'tEOF', value: '', position: n });
  return tokens;
}
