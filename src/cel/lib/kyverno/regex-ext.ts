import { RE2JS } from 're2js';
import { checkBuiltSize } from '../../engine/bounds.js';
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

interface Match {
  /** [start, end) per group (group 0 = the whole match); -1 when the group did not take part. */
  spans: number[];
}

/** Compiles with Go's syntax and errors (re2.ts), then with re2js for the group positions. */
function compile(pattern: string): RE2JS {
  try {
    compileRe2(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw celError(e.message);
    throw e;
  }
  return RE2JS.compile(pattern);
}

/** Go's FindAllStringSubmatchIndex(s, -1): successive matches, an empty one never right after the previous. */
function allMatches(re: RE2JS, s: string): Match[] {
  const groups = re.groupCount();
  const m = re.matcher(s);
  const out: Match[] = [];
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length && m.find(pos)) {
    const start = m.start();
    const end = m.end();
    const spans: number[] = [];
    for (let g = 0; g <= groups; g++) {
      const gs = m.start(g);
      spans.push(gs, gs < 0 ? -1 : m.end(g));
    }
    if (end === pos) {
      // An empty match at the search position: reported unless it abuts the previous match; step one rune.
      if (start !== prevEnd) out.push({ spans });
      pos += pos < s.length && s.charCodeAt(pos) >= 0xd800 && s.charCodeAt(pos) <= 0xdbff ? 2 : 1;
    } else {
      out.push({ spans });
      pos = end;
    }
    prevEnd = end;
  }
  return out;
}

function expand(target: string, match: Match, replacement: string, groups: number): string {
  let out = '';
  const runes = Array.from(replacement);
  for (let i = 0; i < runes.length; i++) {
    const c = runes[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    if (i + 1 >= runes.length) throw celError(`invalid replacement string: '${replacement}' \\ not allowed at end`);
    const next = runes[++i];
    if (next === '\\') {
      out += '\\';
      continue;
    }
    if (!/^[0-9]$/.test(next)) throw celError(`invalid replacement string: '${replacement}' \\ must be followed by a digit or \\`);
    const n = Number(next);
    if (n > groups) throw celError(`replacement string references group ${n} but regex has only ${groups} group(s)`);
    const start = match.spans[2 * n];
    if (start !== -1) out += target.slice(start, match.spans[2 * n + 1]);
  }
  return out;
}

function replace(target: string, pattern: string, replacement: string, count = -1n): string {
  if (count === 0n) return target;
  const re = compile(pattern);
  const groups = re.groupCount();
  let out = '';
  let last = 0;
  let done = 0n;
  for (const m of allMatches(re, target)) {
    if (count > 0n && done >= count) break;
    const piece = expand(target, m, replacement, groups);
    checkBuiltSize(out.length + (m.spans[0] - last) + piece.length, 'the result of regex.replace');
    out += target.slice(last, m.spans[0]) + piece;
    last = m.spans[1];
    done++;
  }
  return out + target.slice(last);
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
  for (const m of allMatches(re, target)) {
    checkBuiltSize(out.length + 1, 'the result of regex.extractAll');
    if (groups === 1) {
      if (m.spans[2] >= 0 && m.spans[3] > m.spans[2]) out.push(target.slice(m.spans[2], m.spans[3]));
    } else out.push(target.slice(m.spans[0], m.spans[1]));
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
