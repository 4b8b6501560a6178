import { goTrimSpace, SHORT_ESCAPES } from '../../go/index.js';
import { checkBuiltSize } from '../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize, traversal, traversalCost } from './cost.js';
import { celError } from './errors.js';
import { runeCount, unitIndexOf } from '../engine/rune-index.js';
import { runeIndexOf, runeLastIndexOf } from './rune-search.js';
import { formatString, stringClause } from './string-format.js';
import { KUBERNETES_FORMAT_CLAUSES } from './string-format-k8s.js';
import { formatCallIssue } from './string-format-check.js';
import { celTypeName } from './values.js';

/**
 * cel-go's strings extension (`ext.Strings`) as Kubernetes configures it, plus `reverse`. Indices
 * count Unicode code points, as cel-go counts runes.
 *
 *   charAt(int), indexOf(string[, int]), lastIndexOf(string[, int]), lowerAscii(), upperAscii(),
 *   replace(string, string[, int]), split(string[, int]), substring(int[, int]), trim(), reverse(),
 *   format(list), <list<string>>.join([string]), strings.quote(string)
 */

const runes = (s: string): string[] => Array.from(s);

function outOfRange(i: bigint | number): never {
  throw celError(`index out of range: ${i}`);
}

/** Runes [start, end) of `s`, both within its rune count, without splitting it into runes. */
function runeSlice(s: string, start: number, end?: number): string {
  const from = unitIndexOf(s, start);
  return end === undefined ? s.slice(from) : s.slice(from, unitIndexOf(s, end));
}

function charAt(s: string, index: bigint): string {
  const length = BigInt(runeCount(s));
  if (index < 0n || index > length) outOfRange(index);
  const i = Number(index);
  return index === length ? '' : runeSlice(s, i, i + 1);
}

function indexOfFrom(s: string, substr: string, offset: bigint): bigint {
  if (substr === '') return offset;
  if (offset < 0n || offset >= BigInt(runeCount(s))) outOfRange(offset);
  return BigInt(runeIndexOf(s, substr, Number(offset)));
}

/**
 * indexOf(substr, offset) as cel-go v0.29 (Kubernetes' cel-go): a negative offset is an error whatever
 * the substring (cel-go#1335); the empty substring matches at the offset clamped to the length
 * (#1335); past the end nothing else is found: -1, not an error (#1052).
 */
function indexOfFromCelGo(s: string, substr: string, offset: bigint): bigint {
  if (offset < 0n) outOfRange(offset);
  const length = BigInt(runeCount(s));
  if (substr === '') return offset > length ? length : offset;
  if (offset >= length) return -1n;
  return BigInt(runeIndexOf(s, substr, Number(offset)));
}

function indexOf(s: string, substr: string): bigint {
  return substr === '' ? 0n : BigInt(runeIndexOf(s, substr, 0));
}

function lastIndexOfFrom(s: string, substr: string, offset: bigint): bigint {
  if (substr === '') return offset;
  if (offset < 0n || offset >= BigInt(runeCount(s))) outOfRange(offset);
  return BigInt(runeLastIndexOf(s, substr, Number(offset)));
}

/** lastIndexOf(substr, offset) as cel-go v0.29: the offset rules of {@link indexOfFromCelGo}. */
function lastIndexOfFromCelGo(s: string, substr: string, offset: bigint): bigint {
  if (offset < 0n) outOfRange(offset);
  const length = BigInt(runeCount(s));
  if (substr === '') return offset > length ? length : offset;
  if (offset >= length) return -1n;
  return BigInt(runeLastIndexOf(s, substr, Number(offset)));
}

function lastIndexOf(s: string, substr: string): bigint {
  // From the end: s.length runes is at or past it.
  return substr === '' ? BigInt(runeCount(s)) : BigInt(runeLastIndexOf(s, substr, s.length));
}

/** Go's strings.Replace: an empty `old` matches before every rune and at the end. */
export function goReplace(s: string, old: string, replacement: string, n: bigint = -1n): string {
  if (old === replacement || n === 0n) return s;
  if (old === '') {
    const r = runes(s);
    const max = n < 0n ? r.length + 1 : Math.min(Number(n), r.length + 1);
    checkBuiltSize(s.length + max * replacement.length, 'the result of replace');
    let out = '';
    for (let i = 0; i < r.length; i++) out += (i < max ? replacement : '') + r[i];
    return out + (r.length < max ? replacement : '');
  }
  let out = '';
  let from = 0;
  for (let done = 0n; n < 0n || done < n; done++) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
    // Checked as it grows: a replacement longer than what it replaces multiplies the size.
    checkBuiltSize(out.length + s.length - from, 'the result of replace');
  }
  return out + s.slice(from);
}

/** Go's strings.SplitN (n < 0: all pieces); an empty separator splits into runes. */
export function goSplit(s: string, sep: string, n: bigint = -1n): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const r = runes(s);
    const count = n < 0n || n > BigInt(r.length) ? r.length : Number(n);
    if (count === 0) return [];
    return [...r.slice(0, count - 1), r.slice(count - 1).join('')];
  }
  const out: string[] = [];
  let from = 0;
  while (n < 0n || BigInt(out.length) < n - 1n) {
    const at = s.indexOf(sep, from);
    if (at < 0) break;
    out.push(s.slice(from, at));
    from = at + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

function substring(s: string, start: bigint): string {
  if (start < 0n || start > BigInt(runeCount(s))) outOfRange(start);
  return runeSlice(s, Number(start));
}

function substringRange(s: string, start: bigint, end: bigint): string {
  if (start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  const length = BigInt(runeCount(s));
  if (start < 0n || start > length) outOfRange(start);
  if (end < 0n || end > length) outOfRange(end);
  return runeSlice(s, Number(start), Number(end));
}

/** ASCII-only case mapping (cel-go's lowerAscii/upperAscii leave other letters alone). */
function asciiCase(s: string, upper: boolean): string {
  return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
}

function join(list: readonly unknown[], separator = ''): string {
  // A dyn list may hold anything; cel-go's join accepts strings only.
  let size = separator.length * Math.max(0, list.length - 1);
  for (const x of list) {
    if (typeof x !== 'string') throw celError(`join: invalid input: ${shown(x)}`);
    size += x.length;
  }
  checkBuiltSize(size, 'the result of join');
  return list.join(separator);
}

/**
 * A value as Go's %v prints it, near enough for an error message. cel-go's null (types.Null, an int32
 * enum without a String method) prints as its number.
 */
function shown(x: unknown): string {
  if (x === null) return '0';
  try {
    return stringClause(x);
  } catch {
    return celTypeName(x);
  }
}

/** strings.quote: a double-quoted CEL string literal; invalid code points become U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += SHORT_ESCAPES[ch] ?? ch;
  }
  return `${out}"`;
}

/**
 * Registers cel-go's strings extension at `version` (the latest: 5). `offsets`: how indexOf/lastIndexOf
 * treat their offset — `cel-go` as Kubernetes' cel-go v0.29 does, `cel-spec` as the cel-spec
 * conformance data the general environment is measured against (an offset at or past the end is an error).
 */
function registerStrings(r: LibraryRegistrar, version: number, offsets: 'cel-go' | 'cel-spec'): void {
  const celGo = offsets === 'cel-go';
  r.registerFunction('string.charAt(int): string', charAt);
  r.registerFunction('string.indexOf(string): int', indexOf);
  r.registerFunction('string.indexOf(string, int): int', celGo ? indexOfFromCelGo : indexOfFrom);
  r.registerFunction('string.lastIndexOf(string): int', lastIndexOf);
  r.registerFunction('string.lastIndexOf(string, int): int', celGo ? lastIndexOfFromCelGo : lastIndexOfFrom);
  r.registerFunction('string.lowerAscii(): string', (s: string) => asciiCase(s, false));
  r.registerFunction('string.upperAscii(): string', (s: string) => asciiCase(s, true));
  r.registerFunction('string.replace(string, string): string', (s: string, o: string, n: string) => goReplace(s, o, n));
  r.registerFunction('string.replace(string, string, int): string', goReplace);
  r.registerFunction('string.split(string): list<string>', (s: string, sep: string) => goSplit(s, sep));
  r.registerFunction('string.split(string, int): list<string>', goSplit);
  r.registerFunction('string.substring(int): string', substring);
  r.registerFunction('string.substring(int, int): string', substringRange);
  r.registerFunction('string.trim(): string', goTrimSpace); // cel-go's ext strings: strings.TrimSpace
  // reverse is version 3: not in Kubernetes' environments.
  if (version >= 3) r.registerFunction('string.reverse(): string', (s: string) => runes(s).reverse().join(''));
  // The formatter changed at version 4 (cel-spec's); version 2 has cel-go's first one (string-format-k8s.ts).
  const clauses = version >= 4 ? undefined : KUBERNETES_FORMAT_CLAUSES;
  r.registerFunction('string.format(list<dyn>): string', (s: string, args: unknown[]) => formatString(s, args, clauses));
  // cel-go checks constant format calls at compile time from version 1 on; from version 4 with another
  // validator (formatting_v2.go), not carried: only Kubernetes' version 2 environments validate.
  if (version >= 1 && version < 4) r.registerCallCheck('format', (call) => formatCallIssue(call, STRINGS_LIBRARY));
  r.registerFunction('list<string>.join(): string', (l: readonly unknown[]) => join(l));
  r.registerFunction('list<string>.join(string): string', join);
  r.registerFunction('strings.quote(string): string', quote);
}

function stringsCost(name: string, args: readonly unknown[], result: unknown): number | undefined {
  switch (name) {
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return args.length >= 1 ? traversal(args[0]) : undefined;
    case 'replace':
    case 'split':
      return args.length >= 1 ? traversal(args[0], 2) : undefined;
    case 'join':
      return Math.ceil(actualSize(result) * 2 * 0.1);
    case 'indexOf':
    case 'lastIndexOf':
      // Kubernetes charges by function name, whatever the receiver: one traversal (lists.go's rule).
      return args.length > 0 ? traversalCost(args[0]) : 0;
    case 'strings.quote':
    case 'format':
      // cel-go's own cost for quote and format: one traversal of the (format) string.
      return args.length >= 1 ? traversal(args[0]) : undefined;
  }
  return undefined;
}

const STRINGS_LIBRARY = 'cel.lib.ext.strings';

/** cel-go's strings extension, latest version (cel-spec formatting). */
export const stringsLibrary: CelLibrary = {
  name: STRINGS_LIBRARY,
  register: (r) => registerStrings(r, 5, 'cel-spec'),
  callCost: stringsCost,
};

/**
 * The strings extension at version 2, as Kubernetes' environments declare it (kube-apiserver's base
 * environment, and Kyverno's, which keeps its library versions): no string reverse, and the first
 * formatter (string-format-k8s.ts); indexOf/lastIndexOf offsets as cel-go v0.29 (an offset past the
 * end finds nothing instead of failing).
 */
export const kubernetesStringsLibrary: CelLibrary = {
  name: STRINGS_LIBRARY,
  register: (r) => registerStrings(r, 2, 'cel-go'),
  callCost: stringsCost,
};
