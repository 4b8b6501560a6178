/**
 * Semantic versions (src/go/semver.ts), blang/semver v4 as Kyverno's numeric operators, CEL's semver() and
 * `semver_compare` use it. The engine's former copy held version numbers as JavaScript numbers, so it
 * lost precision above 2^53 and accepted numbers beyond uint64, which blang/semver refuses.
 */
import { describe, expect, it } from 'vitest';
import { compareVersions, parseRange, parseVersion, tryParseVersion } from '../../src/go/index.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';

describe('semver.Parse and Compare', () => {
  it('orders versions by SemVer precedence', () => {
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.10.0'];
    for (let i = 1; i < order.length; i++) {
      expect(compareVersions(parseVersion(order[i - 1]), parseVersion(order[i]))).toBe(-1);
    }
    expect(compareVersions(parseVersion('1.2.3+build.1'), parseVersion('1.2.3'))).toBe(0);
  });
  it("refuses what blang/semver refuses, with its messages", () => {
    expect(() => parseVersion('1.2')).toThrow('No Major.Minor.Patch elements found');
    expect(() => parseVersion('01.2.3')).toThrow('Major number must not contain leading zeroes "01"');
    expect(() => parseVersion('1.2.3-01')).toThrow('Numeric PreRelease version must not contain leading zeroes "01"');
    expect(() => parseVersion('18446744073709551616.0.0')).toThrow('value out of range');
    for (const text of ['v1.2.3', '1.2.3-', '1.2.3+', '1.2.x', '']) expect(tryParseVersion(text)).toBeUndefined();
  });
});

describe('where the engine copy disagreed', () => {
  it('numbers beyond 2^53 compare exactly', () => {
    expect(evaluateOperator('greaterthan', '9007199254740993.0.0', '9007199254740992.0.0')).toBe(true);
  });
  it('numbers beyond uint64 are not versions', () => {
    expect(evaluateOperator('greaterthan', '18446744073709551616.0.0', '1.0.0')).toBe(false);
  });
});

describe("a range's comparator is trimmed with Go's strings.TrimSpace (range.go splitComparatorVersion)", () => {
  it('U+0085 between the operator and the version is a space; U+FEFF is not', () => {
    expect(parseRange('>\u00850.1.0')(parseVersion('1.0.0'))).toBe(true);
    expect(() => parseRange('>\uFEFF0.1.0')).toThrow('Could not parse comparator ">\\ufeff" in ">\\ufeff0.1.0"');
  });
});
