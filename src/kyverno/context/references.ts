/**
 * `$(path)` references (substituteReferencesIfAny and resolveReference in pkg/engine/variables/vars.go),
 * done as Kyverno does them:
 *
 * - a reference is what `^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)` matches: greedy up to the last `)` before
 *   a space, so `$(../a)-$(../b)` is ONE reference (to the path `../a)-$(../b`, which resolves to
 *   nothing); the surrounding `$`, `(` and `)` characters are trimmed off;
 * - an optional operator (`>=`, `<=`, `>`, `<`, `!`, a range's `-` or `!-`) is taken off the front;
 * - the path is relative to the referencing string's own traversal path (`path.Join`; `../` goes up one
 *   level), or absolute when it starts with `/` (then used as written, not cleaned);
 * - the value is the leaf (or map key) of the ORIGINAL document whose traversal path, anchors removed,
 *   equals that path (the last one in traversal order);
 * - without an operator the value must be a string; with one a string is kept and a number is printed
 *   with `%f` (`>=10.000000`), the operator put back in front;
 * - then every `\$(…)` escape loses its backslash.
 */
import type { ReviewGuard } from '../../guard/index.js';
import { goSprint } from '../../go/index.js';
import { isJsonObject, type JsonValue } from '../../json/index.js';
import { stripAnchor } from '../patchers/anchors.js';
import { KyvernoRuleError } from '../errors.js';
import { operatorOf } from '../match/pattern.js';
import { traversalPath } from './self-path.js';
import { rewriteStrings } from './walk.js';

const hasReference = (s: string) => s.includes('$(');

/**
 * The matches of Kyverno's regex.RegexReferences, `^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)` (leftmost first,
 * greedy, Go's `.` stopping only at a newline), found without a backtracking regex: from each `$(` a
 * backtracking engine would run to the next space and back, quadratic in a long run of `$(`, where Go's
 * RE2 is linear. A match ends at the last `)` before the first space after its third character.
 */
function findReferences(text: string): { index: number; text: string }[] {
  const found: { index: number; text: string }[] = [];
  const n = text.length;
  let scanned = 0; // where the next match may start
  // The first space at or after the position searched, and the last `)` before it, found once per run
  // of non-spaces: each character is looked at a bounded number of times.
  let spaceAfter = -1;
  let parenBefore = -1;
  for (let s = text.indexOf('$('); s >= 0; s = text.indexOf('$(', s + 1)) {
    // The `$(` starts the text, or follows a character of its own that is not a backslash.
    if (s > 0 && (s - 1 < scanned || text[s - 1] === '\\')) continue;
    if (s + 2 >= n || text[s + 2] === '\n') continue;
    const from = s + 3;
    if (from > spaceAfter || spaceAfter < 0) {
      spaceAfter = text.indexOf(' ', from);
      if (spaceAfter < 0) spaceAfter = n;
      // Only a `)` at or after `from` counts (a later `$(` of the same run starts after it).
      parenBefore = spaceAfter - 1;
      while (parenBefore >= from && text[parenBefore] !== ')') parenBefore--;
    }
    if (parenBefore < from) continue;
    const index = s === 0 ? 0 : s - 1;
    found.push({ index, text: text.slice(index, parenBefore + 1) });
    scanned = parenBefore + 1;
    s = parenBefore;
  }
  return found;
}

/**
 * Kyverno's regex.RegexEscpReferences, `\\\$\(.[^ )]*\)`, each match without its backslash, in one
 * linear pass (Kyverno replaces each match's text everywhere, one after the other: the same result
 * unless escapes overlap).
 */
function unescapeReferences(text: string): string {
  let out = '';
  let last = 0;
  let stop = -1; // the first space or `)` at or after the position searched
  for (let i = text.indexOf('\\$('); i >= 0; i = text.indexOf('\\$(', i + 1)) {
    if (i < last || i + 3 >= text.length || text[i + 3] === '\n') continue;
    const from = i + 4;
    if (from > stop || stop < 0) {
      stop = from;
      while (stop < text.length && text[stop] !== ' ' && text[stop] !== ')') stop++;
    }
    if (stop >= text.length || text[stop] !== ')') continue;
    out += text.slice(last, i) + text.slice(i + 1, stop + 1);
    last = stop + 1;
    i = stop;
  }
  return out + text.slice(last);
}

/**
 * The text references insert is counted over the whole document and checked against `guard`'s size
 * bound as it grows: each reference inserts a string of the policy's own, so a few hundred references
 * to one long string would build hundreds of megabytes (and the variable scan after it would flatten
 * them), at admission and in the load-time check alike.
 */
export function substituteReferences(document: JsonValue, guard: Pick<ReviewGuard, 'checkSize'>): JsonValue {
  const inserted = { bytes: 0 };
  let index: Map<string, JsonValue> | undefined;
  const lookup = (path: string) => (index ??= indexDocument(document)).get(path) ?? null;
  return rewriteStrings(document, hasReference, (text, path) => resolveAll(text, traversalPath(path), lookup, guard, inserted));
}

function resolveAll(
  text: string,
  at: string,
  lookup: (path: string) => JsonValue,
  guard: Pick<ReviewGuard, 'checkSize'>,
  inserted: { bytes: number },
): string {
  // Each reference is replaced where the scan found it, in one pass. Kyverno replaces the first
  // occurrence of the matched text in the string as it stands, which is that same place unless a value
  // inserted before holds the very same text; one pass keeps a string of many references linear.
  let value = '';
  let last = 0;
  for (const m of findReferences(text)) {
    const old = m.text;
    const initial = old.startsWith('$(');
    const reference = initial ? old : old.slice(1);
    const resolved = resolveReference(reference, at, lookup);
    inserted.bytes += resolved.length;
    guard.checkSize(inserted.bytes, 'the text inserted by $() references');
    value += text.slice(last, m.index) + (initial ? '' : old[0]) + resolved;
    last = m.index + old.length;
  }
  value += text.slice(last);
  return value.includes('\\$(') ? unescapeReferences(value) : value;
}

function resolveReference(reference: string, at: string, lookup: (path: string) => JsonValue): string {
  let path = trimCutset(reference, '$()');
  const op = operatorOf(path);
  const operator = op === 'range' ? '-' : op === 'notRange' ? '!-' : op;
  path = path.slice(operator.length);
  if (path === '') throw new KyvernoRuleError(`failed to resolve ${reference} at path ${at}: expected path, found empty reference`);
  const value = lookup(path.startsWith('/') ? path : joinPath(at, path));
  if (operator === '') {
    if (value === null) throw new KyvernoRuleError(`got nil resolved variable ${reference} at path ${at}: <nil>`);
    if (typeof value !== 'string') throw new KyvernoRuleError(`NotResolvedReferenceErr,reference ${reference} not resolved at path ${at}`);
    return value;
  }
  if (typeof value === 'string') return operator + value;
  if (typeof value === 'number') return operator + formatF(value);
  throw new KyvernoRuleError(
    `failed to resolve ${reference} at path ${at}: incorrect expression: operator ${operator} does not match with value ${goSprint(value)}`,
  );
}

/**
 * Every leaf and map key of the document by its traversal path with anchors removed (a key sits at
 * its map's path); a later one replaces an earlier one, as the last visited wins in getValueFromReference.
 */
function indexDocument(document: JsonValue): Map<string, JsonValue> {
  const index = new Map<string, JsonValue>();
  const visit = (value: JsonValue, path: string) => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) visit(value[i], `${path}/${i}`);
    } else if (isJsonObject(value)) {
      for (const key of Object.keys(value)) {
        index.set(removeAnchorsFromPath(path), key);
        visit(value[key], `${path}/${key.replaceAll('/', '\\/')}`);
      }
    } else {
      index.set(removeAnchorsFromPath(path), value);
    }
  };
  visit(document, '');
  return index;
}

/** anchor.RemoveAnchorsFromPath: each `/`-separated part without its anchor, joined again with path.Join. */
function removeAnchorsFromPath(path: string): string {
  const parts = path.split('/');
  if (parts[0] === '') parts.shift();
  const joined = joinPath(...parts.map(stripAnchor));
  return path.startsWith('/') ? `/${joined}` : joined;
}

/** Go's path.Join: the non-empty elements joined by `/`, then path.Clean; "" when all are empty. */
function joinPath(...elements: string[]): string {
  const text = elements.filter((e) => e !== '').join('/');
  return text === '' ? '' : cleanPath(text);
}

/** Go's path.Clean. */
function cleanPath(path: string): string {
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(part);
  }
  const body = out.join('/');
  return rooted ? `/${body}` : body === '' ? '.' : body;
}

/** strings.Trim(s, cutset). */
function trimCutset(s: string, cutset: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && cutset.includes(s[start])) start++;
  while (end > start && cutset.includes(s[end - 1])) end--;
  return s.slice(start, end);
}

/** fmt's `%f` of a float64: exactly six decimals, the exact binary value rounded half to even. */
function formatF(x: number): string {
  if (Number.isInteger(x)) return `${x < 0 || Object.is(x, -0) ? '-' : ''}${BigInt(Math.abs(x))}.000000`;
  // x = mantissa / 2^shift exactly; scale by 10^6 and round half to even.
  let shift = 0n;
  let mantissa = Math.abs(x);
  while (!Number.isInteger(mantissa)) {
    mantissa *= 2;
    shift++;
  }
  const scaled = BigInt(mantissa) * 1_000_000n;
  const divisor = 1n << shift;
  let q = scaled / divisor;
  const r = scaled % divisor;
  if (r * 2n > divisor || (r * 2n === divisor && q % 2n === 1n)) q++;
  const digits = q.toString().padStart(7, '0');
  return `${x < 0 ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}
