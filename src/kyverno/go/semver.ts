/**
 * blang/semver v4: strict Parse with its error messages, Compare, and ParseRange (with x-wildcards) as
 * `semver_compare` uses it. Numeric identifiers are uint64, kept exact as bigint.
 */

interface Pre {
  num?: bigint;
  str?: string;
}
export interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: Pre[];
}

export class SemverError extends Error {}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const MAX_U64 = (1n << 64n) - 1n;

function parseUint(s: string): bigint {
  if (s === '' || !/^\d+$/.test(s)) throw new SemverError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > MAX_U64) throw new SemverError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

const leadingZero = (s: string) => s.length > 1 && s[0] === '0';

export function parseVersion(s: string): Version {
  if (s.length === 0) throw new SemverError('Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (second < 0) throw new SemverError('No Major.Minor.Patch elements found');
  const parts = [s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1)];
  const names = ['major', 'Major', 'minor', 'Minor'];
  for (let i = 0; i < 2; i++) {
    if (!NUMBERS.test(parts[i])) throw new SemverError(`Invalid character(s) found in ${names[i * 2]} number ${JSON.stringify(parts[i])}`);
    if (leadingZero(parts[i])) throw new SemverError(`${names[i * 2 + 1]} number must not contain leading zeroes ${JSON.stringify(parts[i])}`);
  }
  const major = parseUint(parts[0]);
  const minor = parseUint(parts[1]);
  let patchStr = parts[2];
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  if (!NUMBERS.test(patchStr)) throw new SemverError(`Invalid character(s) found in patch number ${JSON.stringify(patchStr)}`);
  if (leadingZero(patchStr)) throw new SemverError(`Patch number must not contain leading zeroes ${JSON.stringify(patchStr)}`);
  const patch = parseUint(patchStr);
  const pre: Pre[] = prerelease.map((p) => {
    if (p.length === 0) throw new SemverError('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (leadingZero(p)) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      return { num: parseUint(p) };
    }
    if (ALPHANUM.test(p)) return { str: p };
    throw new SemverError(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new SemverError('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new SemverError(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return { major, minor, patch, pre };
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

const cmp = (a: bigint | string, b: bigint | string) => (a === b ? 0 : a > b ? 1 : -1);

export function compareVersions(v: Version, o: Version): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (v[k] !== o[k]) return cmp(v[k], o[k]);
  if (v.pre.length === 0 && o.pre.length === 0) return 0;
  if (v.pre.length === 0) return 1;
  if (o.pre.length === 0) return -1;
  let i = 0;
  for (; i < v.pre.length && i < o.pre.length; i++) {
    const a = v.pre[i];
    const b = o.pre[i];
    let c: number;
    if (a.num !== undefined && b.num === undefined) c = -1;
    else if (a.num === undefined && b.num !== undefined) c = 1;
    else if (a.num !== undefined) c = cmp(a.num, b.num!);
    else c = cmp(a.str!, b.str!);
    if (c !== 0) return c;
  }
  if (i === v.pre.length && i === o.pre.length) return 0;
  return i === v.pre.length ? -1 : 1;
}

export const ZERO_VERSION: Version = { major: 0n, minor: 0n, patch: 0n, pre: [] };

export type Range = (v: Version) => boolean;

function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ' ' && !'><='.includes(lastChar || '\u0000')) {
      if (last < i - 1) result.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== ' ') {
      lastChar = s[i];
    }
  }
  if (last < s.length - 1) result.push(s.slice(last));
  return result.map((r) => r.replaceAll(' ', ''));
}

function splitComparatorVersion(s: string): [string, string] {
  const i = s.search(/\p{Nd}/u);
  if (i < 0) throw new SemverError(`Could not get version from string: ${JSON.stringify(s)}`);
  return [s.slice(0, i).trim(), s.slice(i)];
}

function increment(v: string, index: number): string {
  const parts = v.split('.');
  if (!/^[+-]?\d+$/.test(parts[index] ?? '')) return '';
  parts[index] = String(Number(parts[index]) + 1);
  return parts.join('.');
}

function expandWildcards(parts: string[][]): string[][] {
  return parts.map((p) => {
    const out: string[] = [];
    for (let ap of p) {
      const [op, v] = splitComparatorVersion(ap);
      if (ap.includes('.x')) {
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

export function parseRange(s: string): Range {
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
  const ors = expandWildcards(orParts).map((and) =>
    and.map((ap) => {
      const [op, vs] = splitComparatorVersion(ap);
      const c = COMPARATORS[op];
      if (!c) throw new SemverError(`Could not parse Range ${JSON.stringify(ap)}: Could not parse comparator ${JSON.stringify(op)} in ${JSON.stringify(op + vs)}`);
      let v: Version;
      try {
        v = parseVersion(vs);
      } catch (e) {
        throw new SemverError(`Could not parse Range ${JSON.stringify(ap)}: Could not parse version ${JSON.stringify(vs)} in ${JSON.stringify(op + vs)}: ${(e as Error).message}`);
      }
      return (x: Version) => c(compareVersions(x, v));
    }),
  );
  return (x) => ors.some((and) => and.every((f) => f(x)));
}
