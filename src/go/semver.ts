/**
 * github.com/blang/semver v4, the version library both Kubernetes' CEL `semver` and Kyverno's
 * `semver_compare` link: strict Parse with its error messages (`%q` is strconv.Quote), Compare, and
 * ParseRange (with x-wildcards). Numeric identifiers are uint64, kept exact as bigint.
 */
import type { ReviewGuard } from '../guard/index.js';
import { parseInt64, parseUint64 } from './int64.js';
import { strconvQuote } from './quote.js';
import { compareStrings } from './string-order.js';
import { goTrimSpace } from './trim-space.js';

export type PreRelease = { readonly num: bigint } | { readonly str: string };

export interface Version {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly PreRelease[];
  readonly build: readonly string[];
}

export class SemverError extends Error {}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

/** strconv.ParseUint(s, 10, 64) with its error text. */
function parseUint(s: string): bigint {
  if (!/^[0-9]+$/.test(s)) throw new SemverError(`strconv.ParseUint: parsing ${strconvQuote(s)}: invalid syntax`);
  const v = parseUint64(s);
  if (v === undefined) throw new SemverError(`strconv.ParseUint: parsing ${strconvQuote(s)}: value out of range`);
  return v;
}

/** One of major/minor/patch: characters, then leading zeroes, then ParseUint, in blang's order. */
function parseNumber(s: string, what: 'major' | 'minor' | 'patch'): bigint {
  if (!NUMBERS.test(s)) throw new SemverError(`Invalid character(s) found in ${what} number ${strconvQuote(s)}`);
  if (hasLeadingZeroes(s)) {
    const cap = what[0].toUpperCase() + what.slice(1);
    throw new SemverError(`${cap} number must not contain leading zeroes ${strconvQuote(s)}`);
  }
  return parseUint(s);
}

/** strings.SplitN(s, sep, n). */
export function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** semver.Parse; throws SemverError with blang's message. */
export function parseVersion(s: string): Version {
  if (s.length === 0) throw new SemverError('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new SemverError('No Major.Minor.Patch elements found');
  const major = parseNumber(parts[0], 'major');
  const minor = parseNumber(parts[1], 'minor');
  let patchStr = parts[2];
  let build: string[] = [];
  let preParts: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash !== -1) {
    preParts = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = parseNumber(patchStr, 'patch');
  const pre = preParts.map((p): PreRelease => {
    if (p.length === 0) throw new SemverError('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (hasLeadingZeroes(p)) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${strconvQuote(p)}`);
      return { num: parseUint(p) };
    }
    if (ALPHANUM.test(p)) return { str: p };
    throw new SemverError(`Invalid character(s) found in prerelease ${strconvQuote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new SemverError('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new SemverError(`Invalid character(s) found in build meta data ${strconvQuote(b)}`);
  }
  return { major, minor, patch, pre, build };
}

/** Every text Parse accepts starts with two numeric components. */
const MAY_BE_VERSION = /^\d+\.\d+\./;

/** semver.Parse without the message: undefined where blang/semver reports an error. */
export function tryParseVersion(s: string): Version | undefined {
  if (!MAY_BE_VERSION.test(s)) return undefined;
  try {
    return parseVersion(s);
  } catch {
    return undefined;
  }
}

function comparePre(a: PreRelease, b: PreRelease): -1 | 0 | 1 {
  if ('num' in a && 'num' in b) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  if ('str' in a && 'str' in b) return compareStrings(a.str, b.str);
  return 'num' in a ? -1 : 1;
}

/** Version.Compare: build metadata is ignored; a version without pre-release sorts after one with. */
export function compareVersions(v: Version, o: Version): -1 | 0 | 1 {
  for (const k of ['major', 'minor', 'patch'] as const) if (v[k] !== o[k]) return v[k] > o[k] ? 1 : -1;
  if (v.pre.length === 0 || o.pre.length === 0) {
    return v.pre.length === o.pre.length ? 0 : v.pre.length === 0 ? 1 : -1;
  }
  const n = Math.min(v.pre.length, o.pre.length);
  for (let i = 0; i < n; i++) {
    const c = comparePre(v.pre[i], o.pre[i]);
    if (c !== 0) return c;
  }
  return v.pre.length === o.pre.length ? 0 : v.pre.length < o.pre.length ? -1 : 1;
}

/** Version.String(). */
export function formatVersion(v: Version): string {
  const pre = v.pre.map((p) => ('num' in p ? String(p.num) : p.str));
  return `${v.major}.${v.minor}.${v.patch}${pre.length ? '-' + pre.join('.') : ''}${v.build.length ? '+' + v.build.join('.') : ''}`;
}

export const ZERO_VERSION: Version = { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] };

export type Range = (v: Version) => boolean;

/**
 * blang's splitAndTrim, which keeps a piece only when it is more than one byte long (`last < i-1`, and at
 * the end `last < len(s)-1`): UTF-8 bytes, so a piece of one non-ASCII character (`é`, `∞`) is kept and
 * then refused as no version, where counting UTF-16 units dropped it (`>=1.0.0 é` compared, Go fails).
 */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastByte = 0;
  let byte = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ' ' && !'><='.includes(lastChar || '\u0000')) {
      if (lastByte < byte - 1) result.push(s.slice(last, i));
      last = i + 1;
      lastByte = byte + 1;
    } else if (s[i] !== ' ') {
      lastChar = s[i];
    }
    byte += utf8Units(s, i);
  }
  if (lastByte < byte - 1) result.push(s.slice(last));
  return result.map((r) => r.replaceAll(' ', ''));
}

/** UTF-8 bytes of the UTF-16 unit at `i`: a surrogate pair is 4 (2 + 2), a lone surrogate U+FFFD's 3. */
function utf8Units(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return 2;
  if (c >= 0xdc00 && c <= 0xdfff && i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800) return 2;
  return 3;
}

function splitComparatorVersion(s: string): [string, string] {
  const i = s.search(/\p{Nd}/u);
  if (i < 0) throw new SemverError(`Could not get version from string: ${strconvQuote(s)}`);
  return [goTrimSpace(s.slice(0, i)), s.slice(i)];
}

/** incrementMajorVersion / incrementMinorVersion: strconv.Atoi (int64), +1 wrapping; '' when Atoi fails. */
function increment(v: string, index: number): string {
  const parts = v.split('.');
  const n = parseInt64(parts[index] ?? '');
  if (n === undefined) return '';
  parts[index] = String(BigInt.asIntN(64, n + 1n));
  return parts.join('.');
}


function expandWildcards(parts: string[][], guard: ReviewGuard | undefined): string[][] {
  return parts.map((p) => {
    const out: string[] = [];
    for (let ap of p) {
      guard?.tick();
      // Any `x` makes a part a wildcard to expand (strings.Contains(ap, "x")), one in a pre-release or in
      // the comparator too: `>1.0.0-next` expands to `>=` and no version, an error.
      if (ap.includes('x')) {
        const [op, v] = splitComparatorVersion(ap);
        const vParts = v.split('.');
        const wildcard = vParts[vParts.length - 1] === 'x' ? vParts.length : 0; // 2 = minor, 3 = patch
        let flat = v.replace('.x.x', '.x').replace('.x', '.0');
        if (flat.split('.').length === 2) flat += '.0';
        let resultOp = '';
        let inc = false;
        switch (op) {
          case '>':
            resultOp = '>=';
            inc = true;
            break;
          case '>=':
            resultOp = '>=';
            break;
          case '<':
            resultOp = '<';
            break;
          case '<=':
            resultOp = '<';
            inc = true;
            break;
          case '':
          case '=':
          case '==':
            out.push('>=' + flat);
            resultOp = '<';
            inc = true;
            break;
          case '!=':
          case '!':
            out.push('<' + flat);
            resultOp = '>=';
            inc = true;
            break;
        }
        let resultVersion = flat;
        if (inc) resultVersion = wildcard === 3 ? increment(flat, 1) : wildcard === 2 ? increment(flat, 0) : '';
        ap = resultOp + resultVersion;
      }
      out.push(ap);
    }
    return out;
  });
}

const COMPARATORS: Record<string, (c: number) => boolean> = {
  '': (c) => c === 0,
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '>': (c) => c === 1,
  '>=': (c) => c >= 0,
  '<': (c) => c === -1,
  '<=': (c) => c <= 0,
  '!': (c) => c !== 0,
  '!=': (c) => c !== 0,
};

/**
 * blang's ParseRange. `guard` is ticked twice per comparator (expanded, parsed): a range read from a review
 * can hold 750,000 of them (`1.x 1.x …`, 3 MB), a few microseconds each, 3 s in one call.
 */
export function parseRange(s: string, guard?: ReviewGuard): Range {
  const parts = splitAndTrim(s);
  const orParts: string[][] = [];
  let last = 0;
  parts.forEach((p, i) => {
    if (p === '||') {
      if (i === 0) throw new SemverError("First element in range is '||'");
      orParts.push(parts.slice(last, i));
      last = i + 1;
    }
  });
  if (last === parts.length) throw new SemverError("Last element in range is '||'");
  orParts.push(parts.slice(last));
  const ors = expandWildcards(orParts, guard).map((and) =>
    and.map((ap) => {
      guard?.tick();
      const [op, vs] = splitComparatorVersion(ap);
      const c = Object.hasOwn(COMPARATORS, op) ? COMPARATORS[op] : undefined;
      if (!c) throw new SemverError(`Could not parse Range ${strconvQuote(ap)}: Could not parse comparator ${strconvQuote(op)} in ${strconvQuote(op + vs)}`);
      let v: Version;
      try {
        v = parseVersion(vs);
      } catch (e) {
        throw new SemverError(`Could not parse Range ${strconvQuote(ap)}: Could not parse version ${strconvQuote(vs)} in ${strconvQuote(op + vs)}: ${(e as Error).message}`);
      }
      return (x: Version) => c(compareVersions(x, v));
    }),
  );
  return (x) => ors.some((and) => and.every((f) => f(x)));
}
