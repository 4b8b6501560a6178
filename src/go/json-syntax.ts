/**
 * The syntax error Go's encoding/json reports for a text that is not JSON (`json.Unmarshal` checks the
 * whole text with its scanner before decoding): `invalid character 'x' looking for beginning of value`,
 * `unexpected end of JSON input`, `exceeded max depth`… Go scans bytes, so a character outside ASCII is
 * named by its first UTF-8 byte read as a Latin-1 character, as Go's `quoteChar` does.
 */
import { strconvQuote } from './quote.js';

/** encoding/json's maxNestingDepth. */
const MAX_NESTING_DEPTH = 10000;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const q = strconvQuote(String.fromCharCode(c));
  return `'${q.slice(1, -1)}'`;
}

class Syntax {
  constructor(readonly message: string) {}
}

const invalid = (c: number, context: string) => new Syntax(`invalid character ${quoteChar(c)} ${context}`);

/**
 * Go's error text for `text` as json.Unmarshal into `any` reports it: its scanner's syntax error, else
 * the first number past float64's range; undefined when Go decodes it.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  const b = new TextEncoder().encode(text);
  let i = 0;
  const stack: ('key' | 'value' | 'array')[] = [];
  const eof = () => new Syntax('unexpected end of JSON input');
  // At the end Go's scanner steps once more with a space (scanner.eof): inside a literal, a number or an
  // escape that space is the invalid character reported, elsewhere the input just ended.
  const byteOrSpace = (at: number) => (at < b.length ? b[at] : 0x20);
  const skipSpace = () => {
    while (i < b.length && isSpace(b[i])) i++;
  };
  /** Go pushes a parse state at each '{' and '[', empty or not. */
  const push = (s: 'key' | 'array', c: number) => {
    stack.push(s);
    if (stack.length > MAX_NESTING_DEPTH) throw invalid(c, 'exceeded max depth');
  };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++, i++) {
      if (byteOrSpace(i) !== word.charCodeAt(k)) throw invalid(byteOrSpace(i), `in literal ${word} (expecting '${word[k]}')`);
    }
  };
  const digits = () => {
    while (i < b.length && isDigit(b[i])) i++;
  };
  const string = () => {
    // b[i - 1] was the opening quote.
    for (;;) {
      if (i >= b.length) throw eof();
      const c = b[i++];
      if (c === 0x22) return;
      if (c === 0x5c) {
        const e = byteOrSpace(i++);
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            if (!isHex(byteOrSpace(i))) throw invalid(byteOrSpace(i), 'in \\u hexadecimal character escape');
            i++;
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) throw invalid(e, 'in string escape code');
      } else if (c < 0x20) throw invalid(c, 'in string literal');
    }
  };
  let outOfRange: string | undefined;
  const number = (first: number) => {
    const start = i - 1;
    number_(first);
    if (outOfRange === undefined) {
      const literal = new TextDecoder().decode(b.subarray(start, i));
      if (!Number.isFinite(Number(literal))) outOfRange = literal;
    }
  };
  const number_ = (first: number) => {
    if (first === 0x2d) {
      const c = byteOrSpace(i);
      if (!isDigit(c)) throw invalid(c, 'in numeric literal');
      i++;
      if (c !== 0x30) digits();
    } else if (first !== 0x30) digits();
    if (i < b.length && b[i] === 0x2e) {
      i++;
      if (!isDigit(byteOrSpace(i))) throw invalid(byteOrSpace(i), 'after decimal point in numeric literal');
      digits();
    }
    if (i < b.length && (b[i] === 0x65 || b[i] === 0x45)) {
      i++;
      if (i < b.length && (b[i] === 0x2b || b[i] === 0x2d)) i++;
      if (!isDigit(byteOrSpace(i))) throw invalid(byteOrSpace(i), 'in exponent of numeric literal');
      digits();
    }
  };
  /**
   * One value from its first byte; a container is left open on the stack unless empty. The first element
   * of an array is begun in the same loop, not by recursion: Go accepts 10,000 levels of `[[[…`, more
   * frames than a JavaScript stack may hold.
   */
  const beginValue = (context: string): void => {
    for (;;) {
      skipSpace();
      if (i >= b.length) throw eof();
      const c = b[i++];
      switch (c) {
        case 0x7b: // {
          push('key', c);
          skipSpace();
          if (i >= b.length) throw eof();
          if (b[i] === 0x7d) {
            i++;
            stack.pop();
            return;
          }
          beginKey();
          return;
        case 0x5b: // [
          push('array', c);
          skipSpace();
          if (i >= b.length) throw eof();
          if (b[i] === 0x5d) {
            i++;
            stack.pop();
            return;
          }
          context = 'looking for beginning of value';
          continue;
        case 0x22:
          string();
          return;
        case 0x74:
          literal('true');
          return;
        case 0x66:
          literal('false');
          return;
        case 0x6e:
          literal('null');
          return;
        default:
          if (c === 0x2d || isDigit(c)) {
            number(c);
            return;
          }
          throw invalid(c, context);
      }
    }
  };
  const beginKey = () => {
    skipSpace();
    if (i >= b.length) throw eof();
    const c = b[i++];
    if (c !== 0x22) throw invalid(c, 'looking for beginning of object key string');
    string();
  };
  try {
    beginValue('looking for beginning of value');
    for (;;) {
      skipSpace();
      if (stack.length === 0) {
        if (i < b.length) throw invalid(b[i], 'after top-level value');
        // Decoding into interface{}: a number past float64's range is Go's UnmarshalTypeError.
        return outOfRange === undefined ? undefined : `json: cannot unmarshal number ${outOfRange} into Go value of type float64`;
      }
      if (i >= b.length) throw eof();
      const c = b[i++];
      const top = stack[stack.length - 1];
      if (top === 'key') {
        if (c !== 0x3a) throw invalid(c, 'after object key');
        stack[stack.length - 1] = 'value';
        beginValue('looking for beginning of value');
      } else if (top === 'value') {
        if (c === 0x2c) {
          stack[stack.length - 1] = 'key';
          beginKey();
        } else if (c === 0x7d) stack.pop();
        else throw invalid(c, 'after object key:value pair');
      } else {
        if (c === 0x2c) beginValue('looking for beginning of value');
        else if (c === 0x5d) stack.pop();
        else throw invalid(c, 'after array element');
      }
    }
  } catch (e) {
    if (e instanceof Syntax) return e.message;
    throw e;
  }
}
