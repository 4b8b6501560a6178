import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { actualSize, publicName, traversal } from './cost.js';
import { celError } from './errors.js';
import { callArgs, fn, namespace, overload, overrideAlias, overrideMethod } from './register.js';
import { formatString } from './string-format.js';

/**
 * cel-go's strings extension (`ext.Strings`) as Kubernetes configures it, plus `reverse`. Indices
 * count Unicode code points, as cel-go counts runes.
 *
 *   charAt(int), indexOf(string[, int]), lastIndexOf(string[, int]), replace(string, string[, int]),
 *   split(string[, int]), substring(int[, int]), reverse(), format(list), strings.quote(string)
 *
 * `indexOf`, `lastIndexOf`, `substring` and `split` replace cel-js's built-ins (UTF-16 indices,
 * other bounds rules). `lowerAscii`, `upperAscii`, `trim` and `join` are cel-js built-ins; the
 * first three take no argument, so they cannot be replaced without changing cel-js, and they keep
 * its semantics (Unicode case mapping, JS whitespace) — see the package report.
 */

const runes = (s: string): string[] => Array.from(s);

function outOfRange(i: bigint | number): never {
  throw celError(`index out of range: ${i}`);
}

function charAt(s: string, index: bigint): string {
  const r = runes(s);
  if (index < 0n || index > BigInt(r.length)) outOfRange(index);
  return index === BigInt(r.length) ? '' : r[Number(index)];
}

function matchAt(r: string[], sub: string[], i: number): boolean {
  for (let j = 0; j < sub.length; j++) if (r[i + j] !== sub[j]) return false;
  return true;
}

function indexOfFrom(s: string, substr: string, offset: bigint): bigint {
  if (substr === '') return offset;
  const r = runes(s);
  const sub = runes(substr);
  if (offset < 0n || offset >= BigInt(r.length)) outOfRange(offset);
  for (let i = Number(offset); i <= r.length - sub.length; i++) if (matchAt(r, sub, i)) return BigInt(i);
  return -1n;
}

function indexOf(s: string, substr: string): bigint {
  if (substr === '') return 0n;
  if (runes(substr).length > runes(s).length) return -1n;
  return indexOfFrom(s, substr, 0n);
}

function lastIndexOfFrom(s: string, substr: string, offset: bigint): bigint {
  if (substr === '') return offset;
  const r = runes(s);
  const sub = runes(substr);
  if (offset < 0n || offset >= BigInt(r.length)) outOfRange(offset);
  const start = Math.min(Number(offset), r.length - sub.length);
  for (let i = start; i >= 0; i--) if (matchAt(r, sub, i)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, substr: string): bigint {
  const len = runes(s).length;
  if (substr === '') return BigInt(len);
  if (runes(substr).length > len) return -1n;
  return lastIndexOfFrom(s, substr, BigInt(len - 1));
}

/** Go's strings.Replace: an empty `old` matches before every rune and at the end. */
export function goReplace(s: string, old: string, replacement: string, n: bigint = -1n): string {
  if (old === replacement || n === 0n) return s;
  if (old === '') {
    const r = runes(s);
    const max = n < 0n ? r.length + 1 : Math.min(Number(n), r.length + 1);
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
  const r = runes(s);
  if (start < 0n || start > BigInt(r.length)) outOfRange(start);
  return r.slice(Number(start)).join('');
}

function substringRange(s: string, start: bigint, end: bigint): string {
  const r = runes(s);
  if (start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > BigInt(r.length)) outOfRange(start);
  if (end < 0n || end > BigInt(r.length)) outOfRange(end);
  return r.slice(Number(start), Number(end)).join('');
}

const QUOTE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** strings.quote: a double-quoted CEL string literal; invalid code points become U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += QUOTE_ESCAPES[ch] ?? ch;
  }
  return `${out}"`;
}

export const stringsLibrary: CelLibrary = {
  name: 'cel.lib.ext.strings',
  register(env: Environment) {
    fn(env, 'string.charAt(int): string', charAt);
    overrideMethod(env, 'indexOf', 1);
    overrideMethod(env, 'indexOf', 2);
    overrideMethod(env, 'lastIndexOf', 1);
    overrideMethod(env, 'lastIndexOf', 2);
    overrideMethod(env, 'substring', 1);
    overrideMethod(env, 'substring', 2);
    overrideMethod(env, 'split', 1);
    overrideMethod(env, 'split', 2);
    overload(env, overrideAlias('indexOf'), 'string', ['string'], 'int', indexOf);
    overload(env, overrideAlias('indexOf'), 'string', ['string', 'int'], 'int', indexOfFrom);
    overload(env, overrideAlias('lastIndexOf'), 'string', ['string'], 'int', lastIndexOf);
    overload(env, overrideAlias('lastIndexOf'), 'string', ['string', 'int'], 'int', lastIndexOfFrom);
    overload(env, overrideAlias('substring'), 'string', ['int'], 'string', substring);
    overload(env, overrideAlias('substring'), 'string', ['int', 'int'], 'string', substringRange);
    overload(env, overrideAlias('split'), 'string', ['string'], 'list<string>', (s: string, sep: string) =>
      goSplit(s, sep),
    );
    overload(env, overrideAlias('split'), 'string', ['string', 'int'], 'list<string>', goSplit);
    fn(env, 'string.replace(string, string): string', (s: string, o: string, r: string) => goReplace(s, o, r));
    fn(env, 'string.replace(string, string, int): string', goReplace);
    fn(env, 'string.reverse(): string', (s: string) => runes(s).reverse().join(''));
    fn(env, 'string.format(list<dyn>): string', (s: string, args: unknown[]) => formatString(s, args));
    namespace(env, 'strings', 'cel.lib.ext.strings.Namespace');
    fn(env, 'cel.lib.ext.strings.Namespace.quote(string): string', (_ns: unknown, s: string) => quote(s));
  },
  callCost(name, rawArgs, result) {
    const args = callArgs(rawArgs);
    switch (publicName(name)) {
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        return args.length >= 1 ? traversal(args[0]) : undefined;
      case 'replace':
      case 'split':
        return args.length >= 1 ? traversal(args[0], 2) : undefined;
      case 'join':
        return args.length >= 1 ? Math.ceil(actualSize(result) * 2 * 0.1) : undefined;
      case 'quote':
        // Only the namespaced strings.quote (its namespace constant comes first).
        return args !== rawArgs && args.length >= 1 ? traversal(args[0]) : undefined;
      case 'strings.quote':
      case 'format':
        // cel-go's own cost for quote and format: one traversal of the (format) string.
        return args.length >= 1 ? traversal(args[0]) : undefined;
    }
    return undefined;
  },
};
