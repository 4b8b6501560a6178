import { markFloatLiteral } from './float-literals.js';
import { setOwn } from './own.js';
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
 * `JSON.parse` with the two things an admission webhook needs on top: a depth limit (every later walk
 * is recursive, so a hostile 100 000-deep document must be refused here) and the int/double distinction
 * of the source text (see float-literals.ts). One linear pre-scan decides; the common document takes
 * the native parser, and only a document holding an integral float literal takes the slower exact one.
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const hasIntegralFloat = prescan(text, maxDepth);
  if (!hasIntegralFloat) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch (err) {
      throw new JsonParseError((err as Error).message);
    }
  }
  return new ExactParser(text).parseDocument();
}

const QUOTE = 0x22, BACKSLASH = 0x5c, OPEN_BRACE = 0x7b, OPEN_BRACKET = 0x5b, CLOSE_BRACE = 0x7d, CLOSE_BRACKET = 0x5d;

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** Checks the nesting depth; returns whether any number literal is a float with an integral value. */
function prescan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let integralFloat = false;
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
    } else if (!integralFloat && ((c >= 0x30 && c <= 0x39) || c === 0x2d)) {
      let j = i + 1;
      let isFloat = false;
      while (j < n && isNumberChar(text.charCodeAt(j))) {
        const d = text.charCodeAt(j);
        if (d === 0x2e || d === 0x65 || d === 0x45) isFloat = true;
        j++;
      }
      if (isFloat && Number.isInteger(Number(text.slice(i, j)))) integralFloat = true;
      i = j - 1;
    }
  }
  return integralFloat;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;

/** A small recursive-descent parser (depth already bounded by the prescan) that marks float literals. */
class ExactParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const value = this.value(undefined, 0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail('Unexpected data after JSON value');
    return value;
  }

  private fail(message: string): never {
    throw new JsonParseError(`${message} at position ${this.pos}`);
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
    if (!m) this.fail(c === undefined ? 'Unexpected end of JSON input' : `Unexpected token ${c}`);
    this.pos += m[0].length;
    const num = Number(m[0]);
    if ((m[1] || m[2]) && Number.isInteger(num) && container) markFloatLiteral(container, key);
    return num;
  }

  private string(): string {
    STRING.lastIndex = this.pos;
    const m = STRING.exec(this.text);
    if (!m) this.fail('Bad string');
    this.pos += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private object(): JsonObject {
    const out: JsonObject = {};
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] === '}') return this.pos++, out;
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('Expected property name');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.pos++] !== ':') this.fail("Expected ':'");
      setOwn(out, key, this.value(out, key));
      this.skipWhitespace();
      const sep = this.text[this.pos++];
      if (sep === '}') return out;
      if (sep !== ',') this.fail("Expected ',' or '}'");
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
      const sep = this.text[this.pos++];
      if (sep === ']') return out;
      if (sep !== ',') this.fail("Expected ',' or ']'");
    }
  }
}
