import { RE2JS } from 're2js';
import { activeGuard, checkBuiltSize } from '../../engine/bounds.js';
import { CelOptional } from '../../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { actualSize, LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR } from '../cost.js';
import { celError } from '../errors.js';
import { compileRe2, RegexSyntaxError } from '../re2.js';

/**
 * cel-go's regex extension (`ext.Regex`): capture groups and replacement, which Kubernetes' own regex
 * library lacks. Offered to Kyverno policies only (the Kubernetes environment does not have it).
 *
 *   regex.replace(target, pattern, replacement[, count]) -> string   (\1..\9 groups, \\ a backslash)
 *   regex.extract(target, pattern) -> optional<string>               (the match, or its one group)
 *   regex.extractAll(target, pattern) -> list<string>
 */

/** [start, end) per group (group 0 = the whole match); -1 when the group did not take part. */
type Spans = number[];

const CACHE_LIMIT = 256;
/** re2js programs by pattern, most recently used last (a policy's patterns are few and reused per review). */
const compiled = new Map<string, RE2JS>();

/** Compiles with Go's syntax and errors (re2.ts), then with re2js for the group positions. */
function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re !== undefined) {
    compiled.delete(pattern);
    compiled.set(pattern, re);
    return re;
  }
  try {
    compileRe2(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw celError(e.message);
    throw e;
  }
  re = RE2JS.compile(pattern);
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value as string);
  compiled.set(pattern, re);
  return re;
}

/** UTF-16 units of the rune at `pos` (a lone surrogate is one). */
function runeWidth(s: string, pos: number): number {
  const c = s.charCodeAt(pos);
  if (c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length) {
    const d = s.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/**
 * Go's FindAllStringSubmatchIndex(s, -1): successive matches, an empty one never right after the previous.
 * Lazy, and ticking the review's guard: a pattern matching at every character of a large string finds
 * millions of matches, which must neither be held at once nor keep the review past its deadline.
 */
function* matches(re: RE2JS, s: string): Generator<Spans> {
  const groups = re.groupCount();
  const m = re.matcher(s);
  const guard = activeGuard();
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    guard?.tick();
    if (!m.find(pos)) return;
    const start = m.start();
    const end = m.end();
    let report = true;
    if (end === pos) {
      // An empty match at the search position: reported unless it abuts the previous match; step one rune.
      report = start !== prevEnd;
      pos += pos < s.length ? runeWidth(s, pos) : 1;
    } else pos = end;
    prevEnd = end;
    if (!report) continue;
    const spans: Spans = [];
    for (let g = 0; g <= groups; g++) {
      const gs = m.start(g);
      spans.push(gs, gs < 0 ? -1 : m.end(g));
    }
    yield spans;
  }
}

/** A replacement string read once: literal text and group numbers, or the error Go gives at a match. */
type Template = { parts: (string | number)[] } | { error: string };

function template(replacement: string, groups: number): Template {
  const parts: (string | number)[] = [];
  let text = '';
  const runes = Array.from(replacement);
  for (let i = 0; i < runes.length; i++) {
    const c = runes[i];
    if (c !== '\\') {
      text += c;
      continue;
    }
    if (i + 1 >= runes.length) return { error: `invalid replacement string: '${replacement}' \\ not allowed at end` };
    const next = runes[++i];
    if (next === '\\') {
      text += '\\';
      continue;
    }
    if (!/^[0-9]$/.test(next)) return { error: `invalid replacement string: '${replacement}' \\ must be followed by a digit or \\` };
    const n = Number(next);
    if (n > groups) return { error: `replacement string references group ${n} but regex has only ${groups} group(s)` };
    if (text !== '') parts.push(text);
    text = '';
    parts.push(n);
  }
  if (text !== '') parts.push(text);
  return { parts };
}

function expand(target: string, spans: Spans, parts: readonly (string | number)[]): string {
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0];
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') out += p;
    else if (spans[2 * p] !== -1) out += target.slice(spans[2 * p], spans[2 * p + 1]);
  }
  return out;
}

function replace(target: string, pattern: string, replacement: string, count = -1n): string {
  if (count === 0n) return target;
  const re = compile(pattern);
  // cel-go checks the replacement at each match (replaceStrValidator): an invalid one fails only if one matches.
  const t = template(replacement, re.groupCount());
  const pieces: string[] = [];
  let length = 0;
  let last = 0;
  let done = 0n;
  for (const spans of matches(re, target)) {
    if (count > 0n && done >= count) break;
    if ('error' in t) throw celError(t.error);
    const piece = expand(target, spans, t.parts);
    length += spans[0] - last + piece.length;
    checkBuiltSize(length, 'the result of regex.replace');
    pieces.push(target.slice(last, spans[0]), piece);
    last = spans[1];
    done++;
  }
  pieces.push(target.slice(last));
  return pieces.join('');
}

function oneGroupAtMost(re: RE2JS, pattern: string): number {
  const groups = re.groupCount();
  if (groups > 1) throw celError(`regular expression has more than one capturing group: ${JSON.stringify(pattern)}`);
  return groups;
}

function extract(target: string, pattern: string): CelOptional {
  const re = compile(pattern);
  const groups = oneGroupAtMost(re, pattern);
  const m = re.matcher(target);
  if (!m.find(0)) return CelOptional.none();
  if (groups === 1) {
    const g = m.start(1) < 0 ? '' : target.slice(m.start(1), m.end(1));
    return g === '' ? CelOptional.none() : CelOptional.of(g);
  }
  return CelOptional.of(target.slice(m.start(), m.end()));
}

function extractAll(target: string, pattern: string): string[] {
  const re = compile(pattern);
  const groups = oneGroupAtMost(re, pattern);
  const out: string[] = [];
  for (const spans of matches(re, target)) {
    checkBuiltSize(out.length + 1, 'the result of regex.extractAll');
    if (groups === 1) {
      if (spans[2] >= 0 && spans[3] > spans[2]) out.push(target.slice(spans[2], spans[3]));
    } else out.push(target.slice(spans[0], spans[1]));
  }
  return out;
}

/** cel-go's trackers: base call cost 1 + (size+1)·0.1 × (pattern+1)·0.25 + the result's size. */
function searchCost(args: readonly unknown[]): number {
  return (actualSize(args[0]) + 1) * STRING_TRAVERSAL_COST_FACTOR * ((actualSize(args[1]) + 1) * REGEX_STRING_LENGTH_COST_FACTOR);
}

export const regexExtLibrary: CelLibrary = {
  name: 'cel.lib.ext.regex',
  register(r: LibraryRegistrar) {
    r.registerFunction('regex.replace(string, string, string): string', (t: string, p: string, s: string) => replace(t, p, s));
    r.registerFunction('regex.replace(string, string, string, int): string', replace);
    r.registerFunction('regex.extract(string, string): optional<string>', extract);
    r.registerFunction('regex.extractAll(string, string): list<string>', extractAll);
  },
  callCost(fn, args, result) {
    const resultSize = result === null || result === undefined ? 0 : result instanceof CelOptional ? (result.hasValue() ? actualSize(result.value()) : 0) : actualSize(result);
    switch (fn) {
      case 'regex.replace':
        return Math.floor(1 + searchCost(args) + resultSize);
      case 'regex.extract':
        return Math.ceil(1 + searchCost(args) + resultSize);
      case 'regex.extractAll':
        return Math.ceil(1 + searchCost(args) + resultSize + LIST_CREATE_BASE_COST);
    }
    return undefined;
  },
};
