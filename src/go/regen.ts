/**
 * Random strings matching a regular expression, as goregen's `regen.Generate` makes them: Kyverno's
 * JMESPath `random(pattern)` and its CEL `random(pattern)` / `random.random(pattern)` both call it.
 * goregen (795b5e3, the version both pin) parses with `syntax.Parse(pattern, 0)`: POSIX syntax, without
 * Go's Perl extensions, so `\d`, `\w`, `\s`, `\pL`, `\b`, `\A`, `\z`, `\Q…\E` and `(?…)` groups are
 * errors (Go's messages, from re2js's port of that parser), and quantifiers may follow one another
 * (`a*?` is `(a*)?`). The pattern is then generated from a small AST: literals, escapes, classes, `.`,
 * groups, alternation and quantifiers. Unbounded repetition (`*`, `+`, `{n,}`) adds at most 10 extra
 * items (goregen draws up to 4096, which nested repetitions multiply); `.` and negated classes draw
 * printable ASCII (goregen draws any code point, mostly written as U+FFFD). Anchors generate nothing.
 */
import { RE2JS } from 're2js';
import type { ReviewGuard } from '../guard/index.js';

type Gen =
  | { t: 'lit'; s: string }
  | { t: 'set'; ranges: [number, number][] }
  | { t: 'seq'; items: Gen[] }
  | { t: 'alt'; options: Gen[] }
  | { t: 'rep'; item: Gen; min: number; max: number };

export class RegenError extends Error {}

const PRINTABLE: [number, number][] = [[0x20, 0x7e]];
const DIGIT: [number, number][] = [[0x30, 0x39]];
const WORD: [number, number][] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const UNBOUNDED_EXTRA = 10;

/**
 * A negated class: its printable ASCII characters, or when it has none (`[^ -~]`, `[[:^ascii:]]`) the
 * code points past ASCII it holds (no surrogate, which a string cannot hold as a rune), so that what
 * is drawn still matches.
 */
function negate(ranges: [number, number][]): [number, number][] {
  const inside = (c: number) => ranges.some(([a, b]) => c >= a && c <= b);
  const out: [number, number][] = [];
  for (let c = 0x20; c <= 0x7e; c++) if (!inside(c)) out.push([c, c]);
  if (out.length > 0) return out;
  let from = 0x80;
  for (const [a, b] of [...ranges, [0xd800, 0xdfff] as [number, number]].sort((x, y) => x[0] - y[0])) {
    if (b < from) continue;
    if (a > from) out.push([from, Math.min(a - 1, 0x10ffff)]);
    from = Math.max(from, b + 1);
  }
  if (from <= 0x10ffff) out.push([from, 0x10ffff]);
  return out;
}

/**
 * Go's POSIX classes (regexp/syntax perl_groups.go), all fourteen; goregen never draws NUL (a range from
 * 0 starts at 1).
 */
const POSIX: Record<string, [number, number][]> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x01, 0x7f]],
  cntrl: [[0x01, 0x1f], [0x7f, 0x7f]],
  digit: DIGIT,
  lower: [[0x61, 0x7a]],
  upper: [[0x41, 0x5a]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  word: WORD,
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  print: PRINTABLE,
  graph: [[0x21, 0x7e]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
};

class RegexParser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Gen {
    const g = this.alternation();
    if (this.i < this.src.length) throw new RegenError(`unexpected ${this.src[this.i]}`);
    return g;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Gen {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { t: 'alt', options };
  }

  private sequence(): Gen {
    const items: Gen[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      let atom = this.atom();
      atom = this.quantified(atom);
      items.push(atom);
    }
    return { t: 'seq', items };
  }

  private quantified(atom: Gen): Gen {
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, UNBOUNDED_EXTRA];
      else if (c === '+') [min, max] = [1, 1 + UNBOUNDED_EXTRA];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
        if (!m) return atom;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? min + UNBOUNDED_EXTRA : Number(m[3]);
        this.i += m[0].length - 1;
      } else return atom;
      this.i++;
      // Without Perl's flags a `?` after a quantifier is one more quantifier: `a*?` is `(a*)?`.
      atom = { t: 'rep', item: atom, min, max };
    }
  }

  private atom(): Gen {
    const c = this.src[this.i++];
    switch (c) {
      case '(': {
        const inner = this.alternation();
        if (this.src[this.i++] !== ')') throw new RegenError('missing )');
        return inner;
      }
      case '[':
        return { t: 'set', ranges: this.classBody() };
      case '.':
        return { t: 'set', ranges: PRINTABLE };
      case '^':
      case '$':
        return { t: 'seq', items: [] };
      case '\\':
        return this.escape(false) as Gen;
      default:
        return { t: 'lit', s: String.fromCodePoint(this.src.codePointAt(this.i - 1)!) + (this.src.codePointAt(this.i - 1)! > 0xffff ? (this.i++, '') : '') };
    }
  }

  /** After a backslash: a set, a literal, or (in a class) a single code point. */
  private escape(inClass: boolean): Gen | number {
    const c = this.src[this.i++];
    // Perl's escapes (\d, \w, \s, \b, \A, \z, \Q, \pL …) were refused by the POSIX parse.
    switch (c) {
      case 'n':
        return inClass ? 10 : { t: 'lit', s: '\n' };
      case 't':
        return inClass ? 9 : { t: 'lit', s: '\t' };
      case 'r':
        return inClass ? 13 : { t: 'lit', s: '\r' };
      case 'f':
        return inClass ? 12 : { t: 'lit', s: '\f' };
      case 'v':
        return inClass ? 11 : { t: 'lit', s: '\v' };
      case 'a':
        return inClass ? 7 : { t: 'lit', s: '\x07' };
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        // An octal escape of up to three digits (a lone \1-\7 is a backreference, which the syntax check refuses).
        const m = /^[0-7]{0,2}/.exec(this.src.slice(this.i))!;
        this.i += m[0].length;
        const cp = parseInt(c + m[0], 8);
        return inClass ? cp : { t: 'lit', s: String.fromCodePoint(cp) };
      }
      case 'x': {
        const m = /^(\{([0-9a-fA-F]+)\}|[0-9a-fA-F]{2})/.exec(this.src.slice(this.i));
        if (!m) throw new RegenError('bad \\x');
        this.i += m[0].length;
        const cp = parseInt(m[2] ?? m[1], 16);
        return inClass ? cp : { t: 'lit', s: String.fromCodePoint(cp) };
      }
      default: {
        const cp = this.src.codePointAt(this.i - 1)!;
        if (cp > 0xffff) this.i++;
        return inClass ? cp : { t: 'lit', s: String.fromCodePoint(cp) };
      }
    }
  }

  private classBody(): [number, number][] {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.i++;
    }
    const ranges: [number, number][] = [];
    let first = true;
    while (this.i < this.src.length && (this.peek() !== ']' || first)) {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.i));
      if (posix) {
        this.i += posix[0].length;
        const r = POSIX[posix[2]] ?? [];
        ranges.push(...(posix[1] ? negate(r) : r));
        continue;
      }
      let lo: number;
      if (this.peek() === '\\') {
        this.i++;
        const e = this.escape(true);
        if (typeof e !== 'number') {
          ranges.push(...(e as { ranges: [number, number][] }).ranges);
          continue;
        }
        lo = e;
      } else {
        lo = this.src.codePointAt(this.i)!;
        this.i += lo > 0xffff ? 2 : 1;
      }
      let hi = lo;
      if (this.peek() === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++;
        if (this.peek() === '\\') {
          this.i++;
          const e = this.escape(true);
          hi = typeof e === 'number' ? e : lo;
        } else {
          hi = this.src.codePointAt(this.i)!;
          this.i += hi > 0xffff ? 2 : 1;
        }
      }
      ranges.push([lo, hi]);
    }
    if (this.src[this.i++] !== ']') throw new RegenError('missing ]');
    return negated ? negate(ranges) : ranges;
  }
}

/**
 * Repetitions one pattern may draw in all. Nested unbounded repetitions multiply (`((a*)*)*…` draws up
 * to 10 per level), and a repetition of something empty (`(()*)*…`) writes nothing, so the size bound
 * never stops it: 20 levels ran until the review's deadline. Real patterns draw a few thousand; goregen
 * has no bound (up to 4096 per level: Kyverno never finishes such a pattern).
 */
export const MAX_REGEN_REPETITIONS = 1 << 18;

interface Generation {
  readonly random: () => number;
  readonly out: string[];
  readonly guard: ReviewGuard | undefined;
  repetitions: number;
}

function generate(g: Gen, st: Generation): void {
  const pick = (n: number) => Math.min(n - 1, Math.floor(st.random() * n));
  switch (g.t) {
    case 'lit':
      st.out.push(g.s);
      return;
    case 'set': {
      const total = g.ranges.reduce((n, [a, b]) => n + (b - a + 1), 0);
      if (total <= 0) return;
      let k = pick(total);
      for (const [a, b] of g.ranges) {
        const size = b - a + 1;
        if (k < size) {
          st.out.push(String.fromCodePoint(a + k));
          return;
        }
        k -= size;
      }
      return;
    }
    case 'seq':
      for (const item of g.items) generate(item, st);
      return;
    case 'alt':
      generate(g.options[pick(g.options.length)], st);
      return;
    case 'rep': {
      const n = g.min + pick(g.max - g.min + 1);
      if ((st.repetitions += n) > MAX_REGEN_REPETITIONS) {
        throw new RegenError(`random(): the pattern repeats more than ${MAX_REGEN_REPETITIONS} times in all (nested repetitions multiply)`);
      }
      for (let i = 0; i < n; i++) {
        if (st.guard) {
          st.guard.checkSize(st.out.length, 'the result of random()');
          st.guard.tick();
        }
        generate(g.item, st);
      }
    }
  }
}

interface PosixParser {
  compilePOSIX(expr: string): unknown;
}
let posixParser: PosixParser | undefined;

/**
 * Go's syntax.Parse(pattern, 0) with its error texts: re2js's RE2.compilePOSIX parses with no flags.
 * re2js exports RE2JS only, whose compile always adds the Perl flags; its RE2 class is reached through
 * a compiled pattern (test/go/regen-posix.test.ts fails if a re2js release moves it).
 */
function parsePosix(pattern: string): void {
  posixParser ??= (RE2JS.compile('') as unknown as { re2Input: { constructor: PosixParser } }).re2Input.constructor;
  posixParser.compilePOSIX(pattern);
}

/**
 * A random string that the pattern matches. Throws a RegenError with Go's message for an invalid pattern; `guard`
 * bounds the length (nested repetitions multiply) and the time.
 */
export function randomFromPattern(pattern: string, random: () => number, guard?: ReviewGuard): string {
  try {
    parsePosix(pattern);
  } catch (e) {
    throw new RegenError((e as Error).message);
  }
  const ast = new RegexParser(pattern).parse();
  const st: Generation = { random, out: [], guard, repetitions: 0 };
  generate(ast, st);
  return st.out.join('');
}
