import { RE2JS, RE2JSException } from 're2js';
import { translateRe2, type FastRegex } from './regex-fast.js';
import { activeGuard } from '../engine/bounds.js';

/**
 * RE2 regular expressions with Go's `regexp` semantics (syntax, error texts, leftmost-first
 * matching, FindAllString's handling of empty matches), in linear time. Every pattern is compiled
 * with re2js (a pure-JS RE2); when a pattern is in the subset {@link translateRe2} understands and
 * the backtracking bound for the input at hand is small, the equivalent built-in RegExp runs
 * instead, because it is 20-50x faster on the short strings admission policies test.
 */

/** Backtracking steps the built-in engine may take for one search before RE2 is used instead. */
const FAST_PATH_BUDGET = 200_000;

export class RegexSyntaxError extends Error {}

export interface Re2Regex {
  readonly pattern: string;
  /** Unanchored search, like Go's MatchString. */
  test(s: string): boolean;
  /** Leftmost-first match, like Go's FindString ('' when there is none). */
  find(s: string): string;
  /** Like Go's FindAllString(s, n): all matches when n < 0. */
  findAll(s: string, n: number): string[];
  /** True when searching `s` runs on the built-in engine (exposed for tests and benchmarks). */
  usesFastPath(s: string): boolean;
}

class CompiledRe2 implements Re2Regex {
  constructor(
    readonly pattern: string,
    private readonly re2: RE2JS,
    private readonly fast: FastRegex | undefined,
  ) {}

  usesFastPath(s: string): boolean {
    return this.fast !== undefined && this.fast.bound(s.length) <= FAST_PATH_BUDGET;
  }

  test(s: string): boolean {
    if (this.usesFastPath(s)) return this.fast!.search.test(s);
    return this.re2.test(s);
  }

  find(s: string): string {
    const m = this.searchFrom(s, 0, this.usesFastPath(s));
    return m ? s.slice(m[0], m[1]) : '';
  }

  findAll(s: string, n: number): string[] {
    const limit = n < 0 ? Infinity : n;
    const fast = this.usesFastPath(s);
    const out: string[] = [];
    let prevEnd = -1;
    const guard = activeGuard();
    for (let pos = 0; out.length < limit && pos <= s.length; ) {
      // One call may find a match per character, costing nothing for an empty pattern: let the deadline in.
      guard?.tick();
      const m = this.searchFrom(s, pos, fast);
      if (!m) break;
      let accept = true;
      if (m[1] === pos) {
        // An empty match right after the previous match is not reported; step over one rune.
        if (m[0] === prevEnd) accept = false;
        pos += runeWidth(s, pos);
      } else pos = m[1];
      prevEnd = m[1];
      if (accept) out.push(s.slice(m[0], m[1]));
    }
    return out;
  }

  /** [start, end) of the leftmost-first match at or after `pos`, in UTF-16 units. */
  private searchFrom(s: string, pos: number, fast: boolean): [number, number] | undefined {
    if (fast) {
      const g = this.fast!.global;
      g.lastIndex = pos;
      const m = g.exec(s);
      return m ? [m.index, m.index + m[0].length] : undefined;
    }
    const matcher = this.re2.matcher(s);
    return matcher.find(pos) ? [matcher.start(), matcher.end()] : undefined;
  }
}

function runeWidth(s: string, pos: number): number {
  if (pos >= s.length) return 1;
  const c = s.charCodeAt(pos);
  if (c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length) {
    const d = s.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

const CACHE_LIMIT = 512;
const cache = new Map<string, Re2Regex | RegexSyntaxError>();

/**
 * Compiles (or fetches from a bounded cache) an RE2 pattern; throws {@link RegexSyntaxError}
 * carrying Go's message (`error parsing regexp: missing closing ): ...`) for invalid patterns.
 */
export function compileRe2(pattern: string): Re2Regex {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    entry = build(pattern);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, entry);
  } else {
    // Refresh recency so frequently used patterns stay cached.
    cache.delete(pattern);
    cache.set(pattern, entry);
  }
  if (entry instanceof RegexSyntaxError) throw entry;
  return entry;
}

function build(pattern: string): Re2Regex | RegexSyntaxError {
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof RE2JSException) return new RegexSyntaxError(goRegexMessage(e, pattern));
    throw e;
  }
  return new CompiledRe2(pattern, re2, translateRe2(pattern));
}

function goRegexMessage(e: RE2JSException, pattern: string): string {
  // re2js mirrors Go's texts ("error parsing regexp: <code>: `<expr>`"); keep any other failure
  // (e.g. a program too large) in the same shape.
  return e.message.startsWith('error parsing regexp:')
    ? e.message
    : `error parsing regexp: ${e.message}: \`${pattern}\``;
}

/**
 * A pattern compiled on first use: validators declared at module level stay out of the cold start
 * (compiling a pattern with re2js costs about a millisecond).
 */
export function lazyRe2(pattern: string): Pick<Re2Regex, 'test'> {
  let re: Re2Regex | undefined;
  return { test: (s) => (re ??= compileRe2(pattern)).test(s) };
}

/**
 * Compile-time check of a constant regex argument: Go's error text, or undefined when valid. The
 * regex library reports it the way kube-apiserver does (regex.ts: a literal check of `matches`, and a
 * failed program creation for a constant pattern).
 */
export function validateRegexLiteral(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RegexSyntaxError) return e.message;
    throw e;
  }
}
