/**
 * Go durations (src/go/duration.ts). The engine's former copy parsed into float nanoseconds and
 * accepted values beyond int64; time.ParseDuration refuses them, and Kyverno compares durations as
 * `Duration.Seconds()` in Equals and the numeric operators but as exact int64 in the deprecated
 * Duration* operators (pkg/engine/variables/operator/{operator,duration}.go).
 */
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, tryParseDuration } from '../../src/go/index.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';

describe('time.ParseDuration and Duration.String()', () => {
  const cases: [string, string][] = [
    ['1h30m', '1h30m0s'],
    ['-1.5s', '-1.5s'],
    ['300ms', '300ms'],
    ['1µs', '1µs'],
    ['1μs', '1µs'],
    ['.5m', '30s'],
    ['1.h', '1h0m0s'],
    ['+0', '0s'],
    ['2562047h47m16.854775807s', '2562047h47m16.854775807s'],
    ['-2562047h47m16.854775808s', '-2562047h47m16.854775808s'],
  ];
  for (const [text, printed] of cases) {
    it(`${text} → ${printed}`, () => expect(formatDuration(parseDuration(text))).toBe(printed));
  }
  it("reports Go's messages", () => {
    expect(() => parseDuration('')).toThrow('time: invalid duration ""');
    expect(() => parseDuration('3')).toThrow('time: missing unit in duration "3"');
    expect(() => parseDuration('3d')).toThrow('time: unknown unit "d" in duration "3d"');
    expect(() => parseDuration('2562047h47m16.854775808s')).toThrow('time: invalid duration');
    for (const text of ['1e3s', '.s', '1h ', 'h', '3000000h']) expect(tryParseDuration(text)).toBeUndefined();
  });
});

describe('where the engine copy disagreed with Go', () => {
  it('a duration beyond int64 nanoseconds is not a duration', () => {
    expect(evaluateOperator('greaterthan', '3000000h', '1h')).toBe(false);
    expect(evaluateOperator('greaterthan', '2000000h', '1h')).toBe(true);
  });
  it('Duration* operators compare exact nanoseconds', () => {
    expect(evaluateOperator('durationgreaterthan', '2562047h47m16.854775807s', '2562047h47m16.854775806s')).toBe(true);
  });
  it('Equals compares float64 seconds, as Kyverno does', () => {
    expect(evaluateOperator('equals', '2562047h47m16.854775807s', '2562047h47m16.854775806s')).toBe(true);
    expect(evaluateOperator('equals', '90s', 90)).toBe(true);
  });
  it('a number of seconds converts as time.Duration(float64) * time.Second, with int64 wrap-around', () => {
    expect(evaluateOperator('durationlessthan', 1.9, '2s')).toBe(true); // truncated to 1s
    expect(evaluateOperator('durationlessthan', 1e19, '1s')).toBe(true); // out of int64: the minimum, × 1e9 wraps to 0
  });
});
