/**
 * Calls of pure functions on constant arguments are evaluated when the expression is planned (src/cel
 * engine planner, foldCall): each evaluation must still give the same value, charge the same cost, stop at
 * the same cost limit and fail with the same error as a call evaluated at run time. The reference here is
 * the same call with its argument read from the object (`object.k`), which is never folded and costs 2
 * more (the identifier and its field).
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, compileExpression, formatCelValue, type CelRole, type EvalResult } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';

const OBJECT = { k: 'bench.amender.dev/0', n: '12', s: 'abcdefghij', bad: 'x', zero: 0 };

function run(expr: string, options: { role?: CelRole; perCallLimit?: number; guard?: ReviewGuard } = {}): EvalResult {
  const c = compileExpression(expr, options.role ?? 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const evaluation = new Evaluation(
    { object: OBJECT },
    { budget: 10_000_000, ...(options.perCallLimit !== undefined ? { perCallLimit: options.perCallLimit } : {}), ...(options.guard ? { guard: options.guard } : {}) },
  );
  return evaluation.evaluate(c.compiled);
}

function shown(r: EvalResult): string {
  return r.ok ? formatCelValue(r.value) : r.message;
}

/** [constant form, the same with its argument read from the object] */
const PAIRS: [string, string, CelRole?][] = [
  [
    "[JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('bench.amender.dev/0'), value: 'x'}]",
    "[JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey(object.k), value: 'x'}]",
    'jsonPatch',
  ],
  ["size('abcdefghij' + 'abcdefghij')", "size(object.s + 'abcdefghij')"],
  ["'abcdefghij'.upperAscii().startsWith('ABC')", "object.s.upperAscii().startsWith('ABC')"],
];

describe('calls with constant arguments', () => {
  for (const [folded, reference, role] of PAIRS) {
    it(`${folded}: the value and cost of the call evaluated at run time, every time`, () => {
      const ref = run(reference, { role });
      expect(ref.ok).toBe(true);
      for (let i = 0; i < 3; i++) {
        const r = run(folded, { role });
        expect(shown(r)).toBe(shown(ref));
        expect(r.cost).toBe(ref.cost - 2);
      }
    });

    it(`${folded}: stops at the same per-call cost limit`, () => {
      const cost = run(folded, { role }).cost;
      expect(run(folded, { role, perCallLimit: cost }).ok).toBe(true);
      const over = run(folded, { role, perCallLimit: cost - 1 });
      expect(over.ok).toBe(false);
      expect(shown(over)).toContain('cost limit exceeded');
    });
  }

  it('a call that fails still fails at each evaluation, with the run-time message', () => {
    const ref = run('12 / object.zero');
    expect(ref.ok).toBe(false);
    for (let i = 0; i < 2; i++) {
      const r = run('12 / 0');
      expect(shown(r)).toBe(shown(ref).replace('12 / object.zero', '12 / 0'));
    }
  });

  it("a folded result over the review guard's size bound is refused as the call would refuse it", () => {
    const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 15 });
    let error: unknown;
    try {
      run("'abcdefghij' + 'abcdefghij'", { guard });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ReviewAborted);
    expect((error as ReviewAborted).message).toContain('a concatenation of strings');
    // The same evaluation under a larger bound, then without a guard.
    expect(shown(run("'abcdefghij' + 'abcdefghij'", { guard: new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 100 }) }))).toBe('"abcdefghijabcdefghij"');
    expect(shown(run("'abcdefghij' + 'abcdefghij'"))).toBe('"abcdefghijabcdefghij"');
  });

  it('a list holding a folded call is still built and charged at run time (cel-go folds literals only)', () => {
    const withCall = run("['a' + 'b', 'c']");
    const literal = run("['ab', 'c']");
    expect(shown(withCall)).toBe(shown(literal));
    expect(withCall.cost).toBeGreaterThan(literal.cost);
  });
});

describe('type conversions of constants (OptOptimize evaluates them when the program is created)', () => {
  it('are constants: free at run time, and a list or map of them is a constant too', () => {
    expect(run("int('12') + 1").cost).toBe(1);
    expect(run("[uint(1), uint(2), uint(3)].isSorted()").cost).toBe(3); // the traversal only
    expect(run("{'t': duration('1s'), 'u': duration('2s')}").cost).toBe(0);
    expect(run('string(object.n)').cost).toBe(3); // not a constant: charged as a call
  });

  it('that fail make the expression fail to compile, as program creation fails', () => {
    const c = compileExpression("object.n == string(int('x'))", 'variable', { params: false });
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.message).toContain("program instantiation failed: type conversion error from 'string' to 'int'");
  });
});
