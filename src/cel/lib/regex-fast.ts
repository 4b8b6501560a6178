/**
 * A fast path for RE2 regexes: translates a conservative subset of RE2 syntax into an equivalent
 * JavaScript RegExp and bounds the work a backtracking engine can do on it, so the caller can use
 * the (20-50x faster) built-in engine exactly when that bound is small for the input at hand, and
 * the linear-time RE2 engine otherwise.
 *
 * Equivalence: Go's regexp and JS both use leftmost-first semantics. The subset excludes every
 * construct whose meaning differs (POSIX classes, \p, \Q, octal, flags other than a leading (?i),
 * \b under (?i)); the rest is rewritten explicitly: `.` becomes [^\n], \s/\d/\w become their
 * ASCII classes, every literal is emitted as a \u{...} escape, and the `u` flag makes JS work on
 * code points like Go works on runes.
 *
 * Safety: a backtracking matcher explores one branch per way of choosing alternation branches and
 * repetition counts. With repetitions of unbounded count allowed only on single-character atoms,
 * the number of such choices per start position is at most C·(N+1)^d for input length N (d = the
 * number of unbounded repetitions along a path, C from alternations and bounded repetitions), and
 * each choice costs at most (atoms + N + 1) steps. Patterns not anchored with ^ are tried at N+1
 * start positions. {@link FastRegex.bound} returns that product; anything outside the subset,
 * including an unbounded repetition of a group, is not given a fast path at all.
 */

export interface FastRegex {
  /** Equivalent JS RegExp, unanchored search (`u`, optionally `i`). */
  readonly search: RegExp;
  /** The same with the `g` flag, for searching from an index. */
  readonly global: RegExp;
  /** Upper bound on backtracking steps for an input of `n` UTF-16 units. */
  bound(n: number): number;
}

type Node =
  | { k: 'char' }
  | { k: 'assert' }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; branches: Node[] }
  | { k: 'rep'; min: number; max: number; child: Node };

/** Polynomial bound C·(N+1)^d on the number of choices; C kept as a float. */
interface Paths {
  c: number;
  d: number;
}

const MAX_C = 1e12;

class Unsupported extends Error {}

class Translator {
  private i = 0;
  out = '';
  atoms = 0;
  readonly cps: number[];

  constructor(
    pattern: string,
    private readonly fold: boolean,
  ) {
    this.cps = Array.from(pattern, (c) => c.codePointAt(0)!);
    for (const c of this.cps) if (c >= 0xd800 && c <= 0xdfff) throw new Unsupported();
  }

  parse(): Node {
    const node = this.alt();
    if (this.i < this.cps.length) throw new Unsupported();
    return node;
  }

  private peek(o = 0): number | undefined {
    return this.cps[this.i + o];
  }

  private alt(): Node {
    const branches = [this.seq()];
    while (this.peek() === 0x7c /* | */) {
      this.i++;
      this.out += '|';
      branches.push(this.seq());
    }
    return branches.length === 1 ? branches[0] : { k: 'alt', branches };
  }

  private seq(): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) break;
      const start = this.out.length;
      const atom = this.atom();
      items.push(this.quantifier(atom, start));
    }
    return { k: 'seq', items };
  }

  private quantifier(atom: Node, start: number): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    let text: string;
    if (c === 0x2a /* * */) [min, max, text] = [0, Infinity, '*'];
    else if (c === 0x2b /* + */) [min, max, text] = [1, Infinity, '+'];
    else if (c === 0x3f /* ? */) [min, max, text] = [0, 1, '?'];
    else if (c === 0x7b /* { */) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.cps.slice(this.i, this.i + 16)));
      if (!m) throw new Unsupported(); // a literal '{' in Go: leave it to RE2
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      text = m[0];
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (atom.k === 'assert') throw new Unsupported();
    // Wrap the atom so the quantifier applies to all of it, then copy a lazy marker.
    this.out = `${this.out.slice(0, start)}(?:${this.out.slice(start)})${text}`;
    if (this.peek() === 0x3f) {
      this.i++;
      this.out += '?';
    }
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || next === 0x7b) throw new Unsupported();
    return { k: 'rep', min, max, child: atom };
  }

  private atom(): Node {
    const c = this.cps[this.i++];
    this.atoms++;
    switch (c) {
      case 0x28 /* ( */: {
        if (this.peek() === 0x3f /* ? */) {
          if (this.peek(1) === 0x3a /* : */) this.i += 2;
          else if (this.peek(1) === 0x50 /* P */ || this.peek(1) === 0x3c /* < */) this.skipGroupName();
          else throw new Unsupported(); // flag groups, lookarounds (RE2 rejects the latter)
        }
        this.out += '(?:';
        const inner = this.alt();
        if (this.cps[this.i++] !== 0x29) throw new Unsupported();
        this.out += ')';
        return inner;
      }
      case 0x5b /* [ */:
        this.charClass();
        return { k: 'char' };
      case 0x2e /* . */:
        this.out += '[^\\n]';
        return { k: 'char' };
      case 0x5e /* ^ */:
        this.out += '^';
        return { k: 'assert' };
      case 0x24 /* $ */:
        this.out += '$';
        return { k: 'assert' };
      case 0x5c /* \ */:
        return this.escape();
      case 0x2a:
      case 0x2b:
      case 0x3f:
      case 0x7b:
      case 0x29:
        throw new Unsupported();
      default:
        this.out += lit(c);
        return { k: 'char' };
    }
  }

  private skipGroupName(): void {
    // (?P<name>...) or (?<name>...): RE2 has validated the name; only the group matters here.
    const close = this.cps.indexOf(0x3e /* > */, this.i);
    if (close < 0) throw new Unsupported();
    this.i = close + 1;
  }

  private escape(): Node {
    const c = this.cps[this.i++];
    if (c === undefined) throw new Unsupported();
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case 'd':
      case 'w':
      case 's':
        this.out += `[${classRanges(PERL[ch])}]`;
        return { k: 'char' };
      case 'D':
      case 'W':
      case 'S':
        this.out += `[^${classRanges(PERL[ch.toLowerCase() as 'd' | 'w' | 's'])}]`;
        return { k: 'char' };
      case 'b':
      case 'B':
        if (this.fold) throw new Unsupported();
        this.out += `\\${ch}`;
        return { k: 'assert' };
      case 'A':
        this.out += '^';
        return { k: 'assert' };
      case 'z':
        this.out += '$';
        return { k: 'assert' };
    }
    this.out += lit(this.escapedChar(c));
    return { k: 'char' };
  }

  /** A single-character escape (outside or inside a class) as its code point. */
  private escapedChar(c: number): number {
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, a: 7 };
    const ch = String.fromCodePoint(c);
    if (ch in simple) return simple[ch];
    if (ch === 'x') return this.hexEscape();
    // Go accepts a backslash before any ASCII punctuation; letters and digits mean something else.
    if (c < 0x80 && !/[0-9A-Za-z]/.test(ch)) return c;
    throw new Unsupported();
  }

  private hexEscape(): number {
    if (this.peek() === 0x7b) {
      const close = this.cps.indexOf(0x7d, this.i);
      // More than six digits is left to RE2 before they are spread into a call (a review's pattern may
      // hold more than a call takes arguments).
      if (close < 0 || close - this.i - 1 > 6) throw new Unsupported();
      const hex = String.fromCodePoint(...this.cps.slice(this.i + 1, close));
      this.i = close + 1;
      if (!/^[0-9A-Fa-f]{1,6}$/.test(hex)) throw new Unsupported();
      return parseInt(hex, 16);
    }
    const hex = String.fromCodePoint(...this.cps.slice(this.i, this.i + 2));
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Unsupported();
    this.i += 2;
    return parseInt(hex, 16);
  }

  private charClass(): void {
    let negated = false;
    if (this.peek() === 0x5e) {
      negated = true;
      this.i++;
    }
    const ranges: [number, number][] = [];
    let first = true;
    for (;;) {
      const c = this.cps[this.i++];
      if (c === undefined) throw new Unsupported();
      if (c === 0x5d /* ] */ && !first) break;
      first = false;
      if (c === 0x5b && this.peek() === 0x3a) throw new Unsupported(); // [:alpha:]
      let lo: number;
      if (c === 0x5c) {
        const e = this.cps[this.i++];
        if (e === undefined) throw new Unsupported();
        const ch = String.fromCodePoint(e);
        if (ch === 'd' || ch === 'w' || ch === 's') {
          ranges.push(...PERL[ch]);
          continue;
        }
        lo = this.escapedChar(e);
      } else lo = c;
      let hi = lo;
      if (this.peek() === 0x2d /* - */ && this.peek(1) !== undefined && this.peek(1) !== 0x5d) {
        this.i++;
        const h = this.cps[this.i++];
        if (h === 0x5c) hi = this.escapedChar(this.cps[this.i++]);
        else if (h === 0x5b) throw new Unsupported();
        else hi = h;
        if (hi < lo) throw new Unsupported();
      }
      ranges.push([lo, hi]);
    }
    if (ranges.length === 0) throw new Unsupported();
    this.out += `[${negated ? '^' : ''}${classRanges(ranges)}]`;
  }
}

const PERL = {
  d: [[0x30, 0x39]] as [number, number][],
  w: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ] as [number, number][],
  s: [
    [0x09, 0x0a],
    [0x0c, 0x0d],
    [0x20, 0x20],
  ] as [number, number][],
};

function lit(c: number): string {
  return `\\u{${c.toString(16)}}`;
}

function classRanges(ranges: [number, number][]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? lit(lo) : `${lit(lo)}-${lit(hi)}`)).join('');
}

function paths(node: Node): Paths {
  switch (node.k) {
    case 'char':
    case 'assert':
      return { c: 1, d: 0 };
    case 'seq':
      return node.items.map(paths).reduce((a, b) => ({ c: a.c * b.c, d: a.d + b.d }), { c: 1, d: 0 });
    case 'alt': {
      const ps = node.branches.map(paths);
      // Not Math.max(...): a pattern from a review may have more branches than a call takes arguments.
      return { c: ps.reduce((s, p) => s + p.c, 0), d: ps.reduce((d, p) => Math.max(d, p.d), -Infinity) };
    }
    case 'rep': {
      if (node.max === Infinity) {
        if (node.child.k !== 'char') throw new Unsupported();
        return { c: 1, d: 1 };
      }
      const child = paths(node.child);
      const count = node.max - node.min + 1;
      return { c: count * child.c ** node.max, d: child.d * node.max };
    }
  }
}

function anchoredAtStart(node: Node, source: string): boolean {
  if (node.k === 'alt') return false;
  return node.k === 'seq' && node.items[0]?.k === 'assert' && source.startsWith('^');
}

/**
 * Translates `pattern` (already validated as RE2) into a {@link FastRegex}, or returns undefined
 * when it lies outside the supported subset.
 */
export function translateRe2(pattern: string): FastRegex | undefined {
  let body = pattern;
  let fold = false;
  if (body.startsWith('(?i)')) {
    fold = true;
    body = body.slice(4);
  }
  try {
    const t = new Translator(body, fold);
    const tree = t.parse();
    const p = paths(tree);
    if (!(p.c <= MAX_C)) return undefined;
    const anchored = anchoredAtStart(tree, t.out);
    const flags = fold ? 'iu' : 'u';
    const search = new RegExp(t.out, flags);
    const global = new RegExp(t.out, `${flags}g`);
    const atoms = t.atoms + 1;
    const degree = p.d + (anchored ? 0 : 1);
    return {
      search,
      global,
      bound: (n) => p.c * (n + 1) ** degree * (atoms + n + 1),
    };
  } catch (e) {
    if (e instanceof Unsupported || e instanceof SyntaxError) return undefined;
    throw e;
  }
}
