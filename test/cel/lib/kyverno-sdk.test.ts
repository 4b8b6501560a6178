/**
 * Kyverno's CEL libraries (kyverno/sdk `extensions/cel/libs`) compared case by case with their Go
 * implementations: corners where Amender gave other results or errors than Kyverno.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../../src/cel/index.js';

function run(expression: string, object: unknown = {}): { value?: CelValue; error?: string } {
  const r = compileExpression(expression, 'variable', { params: false, dialect: 'kyverno' });
  if (!r.ok) return { error: r.message };
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? { value: out.value } : { error: out.message };
}

const value = (e: string, object?: unknown) => {
  const r = run(e, object);
  if (r.error) throw new Error(r.error);
  return r.value;
};

describe('time library', () => {
  it("toCron reads the fields in the timestamp's own zone, as Go's Time.Minute/Hour/Day do", () => {
    expect(value('time.toCron(timestamp("2025-01-02T15:30:00Z"))')).toBe('30 15 2 1 4');
    expect(value('time.toCron(timestamp("2025-01-02T15:30:00+02:00"))')).toBe('30 15 2 1 4');
    expect(value('time.toCron(timestamp("2025-01-02T23:30:00-02:00"))')).toBe('30 23 2 1 4');
    // Truncate counts from the zero time on the instant and keeps the zone.
    expect(value('time.toCron(time.truncate(timestamp("2025-01-02T23:30:00-02:30"), duration("1h")))')).toBe('30 23 2 1 4');
  });
});

describe('math library', () => {
  it("round(v, p) scales by Go's math.Pow(10, p), whose rounding JavaScript's Math.pow does not share", () => {
    // Go: Pow(10, -5) is 1e-5 and Round(1.23456) / 1e-5 is 99999.99999999999; Math.pow(10, -5) is
    // 0.000009999999999999999, which gave 100000.00000000001.
    expect(value('math.round(123456.0, -5)')).toBe(99999.99999999999);
    expect(value('math.round(12345.0, -4)')).toBe(10000);
    expect(value('math.round(3.14159, 2)')).toBe(3.14);
    expect(value('math.round(-2.5, 0)')).toBe(-3);
    // Past the double range: Go's Pow overflows to +Inf (v·Inf / Inf) or underflows to 0 (0 / 0).
    expect(value('math.round(1.5, 400)')).toBeNaN();
    expect(value('math.round(1.5, -400)')).toBeNaN();
    expect(value('math.round(1e300, 10)')).toBe(Infinity);
  });
});
