/**
 * Go `regexp` behaviour on top of re2js (RE2 semantics, linear time): unanchored matching,
 * ReplaceAll with Go's template expansion and ReplaceAllLiteral.
 *
 * Go's template rules: `$name` / `${name}` where name is the longest run of letters, digits and `_`;
 * an all-digit name is a group number (so `$1x` is the group named "1x", usually empty); a missing
 * group expands to nothing; `$$` is a literal `$`; a `$` not followed by a valid name stays as is.
 */
import { RE2JS } from 're2js';
import type { ReviewGuard } from '../../guard/index.js';

const CACHE_SIZE = 256;
/**
 * Longest pattern kept compiled between calls. A policy's patterns are short and come back with every
 * review; a pattern read from the request (`regex_match(request.object…, …)`) may be as long as an
 * annotation, and its compiled program takes some 80 bytes per character: 256 of them kept 4 GB alive
 * after 250 reviews of 200 KB patterns. Longer patterns are compiled for each call, as Go does.
 */
export const CACHED_PATTERN_MAX = 1024;
const cache = new Map<string, RE2JS>();

/** Compiles (cached when short). Throws re2js's error, whose message is Go's ("error parsing regexp: …"). */
export function compileRegexp(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (pattern.length > CACHED_PATTERN_MAX) return re;
    cache.set(pattern, re);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  return re;
}

/**
 * Most steps one match or replacement may take, counted as the pattern's program size times the text's
 * length (+1): re2js simulates the program over the text in one call that nothing can interrupt, and
 * a 5,000-character pattern of `[ab]{1,100}` against a 100 KB annotation ran for 165 s. Go's RE2 runs
 * whatever it is given; a match over this is an error of its rule here (a policy's pattern, usually a
 * few dozen instructions, fits against any text a review holds).
 */
export const REGEX_STEP_LIMIT = 200_000_000;

/** Throws when matching `re` over `text` could take more than REGEX_STEP_LIMIT steps. */
function checkSteps(re: RE2JS, text: string): void {
  const steps = re.programSize() * (text.length + 1);
  if (steps <= REGEX_STEP_LIMIT) return;
  throw new Error(
    `regular expression too costly: a program of ${re.programSize()} instructions over ${text.length} characters may take ${steps} steps, over the limit of ${REGEX_STEP_LIMIT}`,
  );
}

export function regexpMatch(re: RE2JS, s: string): boolean {
  checkSteps(re, s);
  return re.test(s);
}

interface Match {
  start: number;
  end: number;
  groups: (number | null)[][]; // [start, end] per group, null when unset
}

// Made on first use: a \p{…} class costs V8 about a millisecond to build, at module load otherwise.
let nameChar: RegExp | undefined;

function expand(template: string, src: string, m: Match, names: Record<string, number>): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) break;
    out += template.slice(i, dollar);
    i = dollar + 1;
    if (template[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    const brace = template[i] === '{';
    let j = brace ? i + 1 : i;
    const nameStart = j;
    while (j < template.length) {
      const cp = template.codePointAt(j)!;
      const ch = String.fromCodePoint(cp);
      if (!(nameChar ??= /[\p{L}\p{Nd}_]/u).test(ch)) break;
      j += ch.length;
    }
    const name = template.slice(nameStart, j);
    if (name === '' || (brace && template[j] !== '}')) {
      out += '$'; // malformed: the $ is kept as text
      continue;
    }
    i = brace ? j + 1 : j;
    let group = -1;
    if (/^\d+$/.test(name) && !(name.length > 1 && name[0] === '0') && name.length <= 8) group = Number(name);
    else if (Object.prototype.hasOwnProperty.call(names, name)) group = names[name];
    if (group >= 0 && group < m.groups.length) {
      const [s, e] = m.groups[group];
      if (s !== null && e !== null) out += src.slice(s, e);
    }
  }
  return out + template.slice(i);
}

/** regexp.ReplaceAll / ReplaceAllLiteral. */
/** `guard`: the output is checked against its size bound as it grows (`$0$0…` multiplies the input). */
export function regexpReplaceAll(re: RE2JS, src: string, repl: string, literal: boolean, guard?: ReviewGuard): string {
  checkSteps(re, src);
  const matcher = re.matcher(src);
  const groupCount = re.groupCount();
  const names = literal ? {} : re.namedGroups();
  let out = '';
  let lastMatchEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length && matcher.find(searchPos)) {
    const start = matcher.start();
    const end = matcher.end();
    out += src.slice(lastMatchEnd, start);
    // No replacement for an empty match right after the previous match (Go's rule).
    if (end > lastMatchEnd || start === 0) {
      if (literal) {
        out += repl;
      } else {
        const groups: (number | null)[][] = [];
        for (let g = 0; g <= groupCount; g++) {
          const gs = matcher.start(g);
          groups.push(gs < 0 ? [null, null] : [gs, matcher.end(g)]);
        }
        out += expand(repl, src, { start, end, groups }, names);
      }
    }
    lastMatchEnd = end;
    if (guard) {
      guard.checkSize(out.length + src.length - end, 'the result of a regex replacement');
      guard.tick();
    }
    // Advance past the match, at least one character (a whole surrogate pair when there is one).
    const cp = src.codePointAt(searchPos);
    const width = cp !== undefined && cp > 0xffff ? 2 : 1;
    if (searchPos + width > end) searchPos += width;
    else if (searchPos + 1 > end) searchPos++;
    else searchPos = end;
  }
  return out + src.slice(lastMatchEnd);
}
