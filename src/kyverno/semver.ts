/**
 * Semantic versions as blang/semver parses them (`1.2.3`, `1.2.3-rc.1+build`), for the numeric
 * precondition operators, which compare version strings when nothing else fits.
 */

export interface Semver {
  major: number;
  minor: number;
  patch: number;
  pre: (string | number)[];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseSemver(text: string): Semver | undefined {
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  const ids = m[4] === undefined ? [] : m[4].split('.');
  // Numeric identifiers with leading zeros are invalid.
  if (ids.some((p) => /^0\d+$/.test(p))) return undefined;
  const pre = ids.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre };
}

export function compareSemver(a: Semver, b: Semver): number {
  for (const k of ['major', 'minor', 'patch'] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  // A version without pre-release identifiers has the higher precedence.
  if (a.pre.length === 0 || b.pre.length === 0) {
    if (a.pre.length === b.pre.length) return 0;
    return a.pre.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}
