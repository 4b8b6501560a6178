import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { compareVersions, formatVersion, parseVersion, SemverError, splitN, type PreRelease, type Version } from '../../go/index.js';

/**
 * Kubernetes' semver library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`) with the parsing and
 * ordering of github.com/blang/semver/v4 (build metadata is ignored by comparisons).
 *
 *   semver(string[, normalize bool]) -> kubernetes.Semver, isSemver(string[, bool]) -> bool
 *   <Semver>.major(), .minor(), .patch() -> int
 *   <Semver>.isLessThan(Semver), .isGreaterThan(Semver) -> bool, .compareTo(Semver) -> int
 */

export const SEMVER_TYPE = 'kubernetes.Semver';

/** A blang/semver Version as a CEL value. */
export class Semver implements Version {
  readonly celTypeName = SEMVER_TYPE;
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly PreRelease[];
  readonly build: readonly string[];
  constructor(v: Version) {
    this.major = v.major;
    this.minor = v.minor;
    this.patch = v.patch;
    this.pre = v.pre;
    this.build = v.build;
  }

  compare(o: Semver): -1 | 0 | 1 {
    return compareVersions(this, o);
  }

  /** Undefined (no such overload) for another type, as Kubernetes' Semver.Equal. */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof Semver ? this.compare(other) === 0 : undefined;
  }

  toString(): string {
    return formatVersion(this);
  }
}

/** blang/semver v4 Parse as a CEL value. */
function parseSemver(s: string): Semver {
  return new Semver(parseVersion(s));
}

/**
 * Kubernetes' normalizeAndParse: drops a leading "v", strips leading zeros of each of the first
 * three dot-separated parts and fills a missing minor/patch with 0. No whitespace trimming.
 */
function normalizeAndParseSemver(input: string): Semver {
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
