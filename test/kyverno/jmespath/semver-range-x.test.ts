/**
 * semver_compare's ranges are blang/semver v4's ParseRange (Kyverno pins v4.0.0): expandWildcardVersion
 * treats every range part holding an `x` anywhere as a wildcard (`strings.Contains(ap, "x")`), not only
 * `1.x` / `1.2.x`. A part whose `x` is in a pre-release, build or comparator therefore has no wildcard
 * to increment: `>`, `<=`, `=`, `!=` expand to an operator without a version, an error ("Could not get
 * version from string"), while `>=` and `<` keep the version; an unknown comparator before the `x` is
 * dropped (the part becomes an equality). Expected values follow v4/range.go step by step.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const compare = (version: string, range: string) => evaluate(`semver_compare('${version}', '${range}')`, {});

describe('semver_compare: an x outside the version numbers', () => {
  it.each([
    ['>2.0.0-next', '">="'],
    ['<=2.0.0-next', '"<"'],
    ['2.0.0-next', '"<"'],
    ['!=1.0.0-x', '">="'],
    ['1.0.0+linux', '"<"'],
  ])('%s fails: the expansion leaves %s without a version', (range, left) => {
    const r = compare('2.0.0', range);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe(`Could not get version from string: ${left}`);
  });

  it('>= and < keep their version', () => {
    expect(compare('2.0.0', '>=2.0.0-next')).toEqual({ ok: true, value: true });
    expect(compare('2.0.0', '<2.0.0-next')).toEqual({ ok: true, value: false });
  });

  it('an unknown comparator holding an x is dropped', () => {
    expect(compare('1.0.0', 'x1.0.0')).toEqual({ ok: true, value: true });
    expect(compare('1.0.1', 'x1.0.0')).toEqual({ ok: true, value: false });
  });

  it('wildcards still expand as before', () => {
    expect(compare('1.2.9', '1.2.x')).toEqual({ ok: true, value: true });
    expect(compare('1.3.0', '<=1.2.x')).toEqual({ ok: true, value: false });
    expect(compare('2.0.0', '>1.x')).toEqual({ ok: true, value: true });
  });
});
