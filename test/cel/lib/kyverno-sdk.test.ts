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
