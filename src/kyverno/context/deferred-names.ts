/**
 * Which deferred context entries a query names: Kyverno's loader pattern (pkg/engine/context/deferred.go)
 * `(?:\A|\z|\s|[^.0-9A-Za-z])NAME\b`, with the entry's name used as an RE2 pattern. Two forms:
 * - a name of word characters only (nearly every name) is found by reading the query's words once and
 *   looking the names up, so a query costs its length, not one pattern test per entry of the rule;
 * - any other name is compiled by re2js, linear time as Go's regexp is (a JavaScript RegExp made from a
 *   name such as `(a|aa)+$` backtracked without end, which no deadline can interrupt).
 */
import { RE2JS } from 're2js';
import { KyvernoRuleError } from '../errors.js';

const PLAIN_NAME = /^[0-9A-Za-z_]+$/;

export function isPlainName(name: string): boolean {
  return PLAIN_NAME.test(name);
}

/** The pattern of an entry whose name is not plain; a name that is no RE2 pattern fails the entry, as in Kyverno. */
export function nameMatcher(name: string): (query: string) => boolean {
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(`(?:\\A|\\z|\\s|[^.0-9A-Za-z])${name}\\b`);
  } catch (e) {
    throw new KyvernoRuleError(`context entry "${name}": ${e instanceof Error ? e.message : String(e)}`);
  }
  return (query) => pattern.matcher(query).find();
}

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * The plain names the pattern finds in `query`, at most `maxLength` long. A plain name is all word
 * characters, so it must end where a run of them ends (`\b`), and start at the run's start unless a `.`
 * precedes the run, or just after a `_` inside it (`_` is no letter or digit).
 */
export function plainNamesIn(query: string, maxLength: number): Set<string> {
  const names = new Set<string>();
  let i = 0;
  while (i < query.length) {
    if (!isWordChar(query.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < query.length && isWordChar(query.charCodeAt(i))) i++;
    const end = i;
    if (end - start <= maxLength && (start === 0 || query[start - 1] !== '.')) names.add(query.slice(start, end));
    for (let p = Math.max(start, end - maxLength - 1); p < end - 1; p++) {
      if (query.charCodeAt(p) === 95) names.add(query.slice(p + 1, end));
    }
  }
  return names;
}
