import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { goQuote } from './go-quote.js';
import { compareStrings, UINT64_MAX } from './values.js';

/**
 * Kubernetes' semver library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`) with the parsing and
 * ordering of github.com/blang/semver/v4 (build metadata is ignored by comparisons).
 *
 *   semver(string[, normalize bool]) -> kubernetes.Semver, isSemver(string[, bool]) -> bool
 *   <Semver>.major(), .minor(), .patch() -> int
 *   <Semver>.isLessThan(Semver), .isGreaterThan(Semver) -> bool, .compareTo(Semver) -> int
 */

export const SEMVER_TYPE = 'kubernetes.Semver';

class SemverError extends Error {}

type PreRelease = { num: bigint } | { str: string };

export class Semver {
  readonly celTypeName = SEMVER_TYPE;
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: PreRelease[],
    readonly build: string[],
  ) {}

  compare(o: Semver): -1 | 0 | 1 {
    for (const k of ['major', 'minor', 'patch'] as const) {
      if (this[k] !== o[k]) return this[k] > o[k] ? 1 : -1;
    }
    if (this.pre.length === 0 || o.pre.length === 0) {
      return this.pre.length === o.pre.length ? 0 : this.pre.length === 0 ? 1 : -1;
    }
    const n = Math.min(this.pre.length, o.pre.length);
    for (let i = 0; i < n; i++) {
      const c = comparePre(this.pre[i], o.pre[i]);
      if (c !== 0) return c;
    }
    return this.pre.length === o.pre.length ? 0 : this.pre.length < o.pre.length ? -1 : 1;
  }

  celEquals(other: unknown): boolean {
    return other instanceof Semver && this.compare(other) === 0;
  }

  celCompare(other: unknown): -1 | 0 | 1 {
    return this.compare(other as Semver);
  }

  toString(): string {
    const pre = this.pre.map((p) => ('num' in p ? String(p.num) : p.str));
    return `${this.major}.${this.minor}.${this.patch}${pre.length ? '-' + pre.join('.') : ''}${this.build.length ? '+' + this.build.join('.') : ''}`;
  }
}

function comparePre(a: PreRelease, b: PreRelease): -1 | 0 | 1 {
  if ('num' in a && 'num' in b) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  if ('str' in a && 'str' in b) return compareStrings(a.str, b.str);
  return 'num' in a ? -1 : 1;
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

function parseUint(s: string): bigint {
  if (!/^[0-9]+$/.test(s)) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

function parseNumber(s: string, what: 'major' | 'minor' | 'patch'): bigint {
  if (!NUMBERS.test(s)) throw new SemverError(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) {
    const cap = what[0].toUpperCase() + what.slice(1);
    throw new SemverError(`${cap} number must not contain leading zeroes ${goQuote(s)}`);
  }
  return parseUint(s);
}

/** blang/semver v4 Parse. */
export function parseSemver(s: string): Semver {
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
      if (hasLeadingZeroes(p)) {
        throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`);
      }
      return { num: parseUint(p) };
    }
    if (ALPHANUM.test(p)) return { str: p };
    throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new SemverError('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return new Semver(major, minor, patch, pre, build);
}

function splitN(s: string, sep: string, n: number): string[] {
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

/**
 * Kubernetes' normalizeAndParse: drops a leading "v", strips leading zeros of each of the first
 * three dot-separated parts and fills a missing minor/patch with 0. No whitespace trimming.
 */
export function normalizeAndParseSemver(input: string): Semver {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    let t = p.replace(/^0+/, '');
    if (t.length === 0 || !/[0-9]/.test(t[0])) t = '0' + t;
    return t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) {
      throw new SemverError('short version cannot contain PreRelease/Build meta data');
    }
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function toSemver(s: string, normalize: boolean): Semver {
  try {
    return normalize ? normalizeAndParseSemver(s) : parseSemver(s);
  } catch (e) {
    if (e instanceof SemverError) throw celError(e.message);
    throw e;
  }
}

function isSemver(s: string, normalize: boolean): boolean {
  return parses(() => (normalize ? normalizeAndParseSemver(s) : parseSemver(s)), SemverError);
}

export const semverLibrary: CelLibrary = {
  name: 'kubernetes.Semver',
  register(r: LibraryRegistrar) {
    const S = SEMVER_TYPE;
    r.registerType(S, Semver);
    r.registerFunction(`semver(string): ${S}`, (s: string) => toSemver(s, false));
    r.registerFunction(`semver(string, bool): ${S}`, toSemver);
    r.registerFunction('isSemver(string): bool', (s: string) => isSemver(s, false));
    r.registerFunction('isSemver(string, bool): bool', isSemver);
    // Go converts the uint64 components to int64 (wrapping above 2^63-1).
    r.registerFunction(`${S}.major(): int`, (v: Semver) => BigInt.asIntN(64, v.major));
    r.registerFunction(`${S}.minor(): int`, (v: Semver) => BigInt.asIntN(64, v.minor));
    r.registerFunction(`${S}.patch(): int`, (v: Semver) => BigInt.asIntN(64, v.patch));
    r.registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === -1);
    r.registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === 1);
    r.registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)));
  },
  callCost(name, args) {
    switch (name) {
      case 'semver':
      case 'isSemver':
        return args.length >= 1 ? traversal(args[0]) : undefined;
      case 'major':
      case 'minor':
      case 'patch':
      case 'isLessThan':
      case 'isGreaterThan':
      case 'compareTo':
        return 1;
    }
    return undefined;
  },
};
