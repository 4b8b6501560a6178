/**
 * Values from a review can be longer than a JavaScript call takes arguments (V8: some 120,000 under
 * Node's default stack): spreading one into a call (`push(...list)`, `Math.max(...list)`) failed with V8's
 * "Maximum call stack size exceeded" as the expression's error, where Kubernetes answers. `flatten()` of a
 * list holding a review's list of 200,000 items, and `matches()` with a pattern of 200,000 alternatives
 * or a hex escape of 200,000 digits read from the review (Go's regexp compiles both), now give their values.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';

function evaluate(expression: string, object: unknown): unknown {
  const r = compileExpression(expression, 'matchCondition', { params: false });
  if (!r.ok) throw new Error(r.message);
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? out.value : out.message;
}

const N = 200_000;

describe('CEL over review values longer than a call takes arguments', () => {
  it('flatten() of a list holding a list of 200,000 items', () => {
    const object = { spec: { x: Array.from({ length: N }, (_, i) => i) } };
    expect(evaluate(`[object.spec.x].flatten().size() == ${N}`, object)).toBe(true);
    expect(evaluate(`[object.spec.x, object.spec.x].flatten()[${2 * N - 1}] == ${N - 1}`, object)).toBe(true);
  });

  it('matches() with a pattern of 200,000 alternatives', () => {
    const object = { metadata: { annotations: { pattern: `^(${Array(N).fill('a').join('|')})$` } } };
    expect(evaluate('"b".matches(object.metadata.annotations.pattern)', object)).toBe(false);
    expect(evaluate('"a".matches(object.metadata.annotations.pattern)', object)).toBe(true);
  });

  it('matches() with a hex escape of 200,000 digits (Go reads \\x{000…041} as A)', () => {
    const object = { metadata: { annotations: { pattern: `^\\x{${'0'.repeat(N)}41}$` } } };
    expect(evaluate('"A".matches(object.metadata.annotations.pattern)', object)).toBe(true);
    expect(evaluate('"B".matches(object.metadata.annotations.pattern)', object)).toBe(false);
  });
});
