/**
 * CEL under a review guard (src/guard): values that would pass the size bound are refused before they
 * are built, whatever the cost budget says; the deadline is noticed on the cost path (a fake clock that
 * advances at each reading, so nothing here depends on the machine's speed); ReviewAborted is never
 * absorbed into a CEL error value by `||`, `&&` or comprehensions. Without a guard nothing changes.
 */
import { RE2JS } from 're2js';
import { describe, expect, it, vi } from 'vitest';
import { CelEnvironment, CompiledVariables, Evaluation, compileExpression, type EvalResult } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject } from '../../src/json/index.js';

function compiled(expr: string, variables?: CompiledVariables) {
  const c = compileExpression(expr, 'variable', variables ? variables.scope() : { params: false });
  if (!c.ok) throw new Error(c.message);
  return c.compiled;
}

function run(expr: string, guard?: ReviewGuard, variables?: CompiledVariables): EvalResult {
  return new Evaluation({ object: { s: 'abc', l: [1, 2, 3], twenty: Array.from({ length: 20 }, (_, i) => i) } }, { budget: 10_000_000, ...(guard ? { guard } : {}), ...(variables ? { variables } : {}) }).evaluate(compiled(expr, variables));
}

function sizeError(expr: string, maxValueBytes: number): ReviewAborted {
  const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes });
  try {
    run(expr, guard);
  } catch (err) {
    expect(err).toBeInstanceOf(ReviewAborted);
    expect((err as ReviewAborted).reason).toBe('size');
    return err as ReviewAborted;
  }
  throw new Error(`${expr}: no size error under a bound of ${maxValueBytes}`);
}

/** A clock that moves 1 ms at each reading. */
function steppingClock(): () => number {
  let t = 0;
  return () => t++;
}

describe('value-size bound', () => {
  const cases: [string, string][] = [
    ["'abcdefghij' + 'abcdefghij'", 'a concatenation of strings'],
    ["'a'.replace('a', 'abcdefghijklmnopq')", 'the result of replace'],
    ["'aaaa'.replace('', 'xyz')", 'the result of replace'],
    ["['abcdefgh', 'ijklmnop'].join('-')", 'the result of join'],
    ["'%s%s'.format(['abcdefgh', 'ijklmnop'])", 'the result of format'],
    ['lists.range(8) + lists.range(8)', 'a concatenation of lists'],
    // The input's own lists are not measured; what a comprehension builds from them is.
    ['object.twenty.map(x, x * 2)', 'a list built by a comprehension'],
    ['object.twenty.filter(x, x > 2)', 'a list built by a comprehension'],
    ["[lists.range(8), lists.range(8)].flatten()", 'the result of flatten'],
    ["b'abcdefghij' + b'abcdefghij'", 'a concatenation of bytes'],
    ["strings.quote('\\n\\n\\n\\n\\n\\n\\n\\n\\n')", 'the result of strings.quote'],
  ];
  for (const [expr, what] of cases) {
    it(`${expr}: refused over a bound of 15 (${what})`, () => {
      expect(sizeError(expr, 15).message).toContain(what);
      // The same expression under a generous bound, and without a guard, evaluates.
      expect(run(expr, new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 1000 })).ok).toBe(true);
      expect(run(expr).ok).toBe(true);
    });
  }

  it('is not absorbed by || or by a comprehension', () => {
    expect(sizeError("('abcdefghij' + 'abcdefghij') == '' || true", 15).message).toContain('a concatenation of strings');
    expect(run("('abcdefghij' + 'abcdefghij') == '' || true").ok).toBe(true);
    expect(sizeError("['x'].exists(e, (e + 'abcdefghijabcdefghij').size() > 0 || true)", 15).message).toContain('a concatenation of strings');
  });

  it("'a'.replace chained 9× stops at the default 6 MiB, not at 10^9 characters", () => {
    const expr = `'a'${".replace('a', 'aaaaaaaaaa')".repeat(9)}.size()`;
    const err = sizeError(expr, 6 << 20);
    expect(err.message).toMatch(/^the result of replace would be \d+ bytes, over the limit of 6291456 per value$/);
  });

  it('a lazily evaluated variable inherits the guard', () => {
    const vars = CompiledVariables.compile([{ name: 'big', expression: "'abcdefghij' + 'abcdefghij'" }], { params: false });
    const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 15 });
    expect(() => run('variables.big.size()', guard, vars)).toThrow(ReviewAborted);
    expect(run('variables.big.size()', undefined, vars)).toMatchObject({ ok: true, value: 20n });
  });
});

describe('deadline on the cost path', () => {
  const heavy = 'lists.range(300).map(x, lists.range(300).filter(y, y == x).size()).size()';

  it('an evaluation inside the cost limit that keeps charging reads the clock and stops', () => {
    const guard = new ReviewGuard({ deadlineMs: 5, maxValueBytes: 6 << 20, now: steppingClock() });
    let caught: unknown;
    try {
      run(heavy, guard);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReviewAborted);
    expect((caught as ReviewAborted).reason).toBe('deadline');
    expect((caught as ReviewAborted).message).toContain('deadline exceeded');
    // Once tripped, the guard stops the next evaluation at its first checkpoint.
    expect(() => run(heavy, guard)).toThrow(/deadline exceeded/);
  });

  it('a cancelled review stops the same way', () => {
    let cancelled = false;
    const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 6 << 20, isCancelled: () => cancelled });
    expect(run(heavy, guard)).toMatchObject({ ok: true, value: 300n });
    cancelled = true;
    expect(() => run(heavy, guard)).toThrow(/cancelled/);
  });

  it('the cost limit still wins over a guard', () => {
    const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 6 << 20 });
    const r = run('lists.range(1000).map(x, lists.range(1000).filter(y, y == x).size()).size()', guard);
    expect(r).toMatchObject({ ok: false, kind: 'runtime' });
    if (!r.ok) expect(r.message).toContain('actual cost limit exceeded');
  });

  it('values that share subtrees: equality lets the deadline in, printing them is bounded', () => {
    const nested = (leaf: string, levels: number) => {
      let v = leaf;
      for (let i = 0; i < levels; i++) v = `[${v}].map(v${i}, [v${i}, v${i}])[0]`;
      return v;
    };
    // Two separately built trees of 2^40 leaves each: equal, but comparing them leaf by leaf never ends.
    const guard = new ReviewGuard({ deadlineMs: 5, maxValueBytes: 6 << 20, now: steppingClock() });
    expect(() => run(`${nested("'a'", 40)} == ${nested("'a'", 40)}`, guard)).toThrow(/deadline exceeded/);
    const bound = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 6 << 20 });
    expect(() => run(`'%s'.format([${nested("'abc'", 40)}])`, bound)).toThrow(/the result of format would be \d+ bytes/);
  });

  it('plain CEL environments (no guard) are unaffected', () => {
    const env = new CelEnvironment();
    const c = env.compile(`'a'${".replace('a', 'aaaaaaaaaa')".repeat(3)}.size()`);
    if (!c.ok) throw new Error(c.message);
    expect(c.program.evaluate()).toMatchObject({ ok: true, value: 1000n });
  });
});

describe('a library call whose cost, known from its arguments, is over the cost limit is not made', () => {
  /** `n` maps `{k: '<prefix><i>'}` that count every reading of their members (each comparison reads them). */
  function countedMaps(n: number, reads: { n: number }, prefix = 'v'): JsonObject[] {
    const handler: ProxyHandler<JsonObject> = {
      get(t, k, r) {
        reads.n++;
        return Reflect.get(t, k, r);
      },
      ownKeys(t) {
        reads.n++;
        return Reflect.ownKeys(t);
      },
    };
    return Array.from({ length: n }, (_, i) => new Proxy({ k: `${prefix}${i}` }, handler));
  }

  it.each([
    ['sets.contains(object.a, object.b)', 1000, 1 + 1000 * 1000],
    ['sets.intersects(object.a, object.c)', 1000, 1 + 1000 * 1000],
    ['sets.equivalent(object.a, object.b)', 1000, 1 + 2 * 1000 * 1000],
    ['object.a.distinct()', 1000, undefined],
  ])('%s: stops at the cost limit without comparing the elements', (expr, n, cost) => {
    const reads = { n: 0 };
    const object = { a: countedMaps(n, reads), b: countedMaps(n, reads), c: countedMaps(n, reads, 'w') };
    const r = new Evaluation({ object }, { budget: 10_000_000 }).evaluate(compiled(expr));
    expect(r).toMatchObject({ ok: false, kind: 'runtime' });
    if (!r.ok) expect(r.message).toContain('operation cancelled: actual cost limit exceeded');
    // The call is charged what it would have cost (as after the call, cel-go's order).
    if (cost !== undefined) expect(r.cost).toBeGreaterThan(cost);
    expect(reads.n).toBeLessThan(n);
  });

  it('a regex call over the limit is not made (its cost is the input\'s times the pattern\'s)', () => {
    // cost ceil(100,001 × 0.1) × ceil(404 × 0.25) = 1,010,101; \pL keeps the search on RE2 (no built-in fast path).
    const object = { s: 'a'.repeat(100_000), p: `\\pL${'a'.repeat(400)}` };
    const test = vi.spyOn(RE2JS.prototype, 'test');
    const matcher = vi.spyOn(RE2JS.prototype, 'matcher');
    try {
      for (const expr of ['object.s.matches(object.p)', 'matches(object.s, object.p)', 'object.s.find(object.p)', 'object.s.findAll(object.p)', 'object.s.findAll(object.p, 1)']) {
        const r = new Evaluation({ object }, { budget: 10_000_000 }).evaluate(compiled(expr));
        expect(r, expr).toMatchObject({ ok: false, kind: 'runtime' });
        if (!r.ok) expect(r.message).toContain('operation cancelled: actual cost limit exceeded');
        expect(r.cost, expr).toBeGreaterThan(1_010_101);
      }
      expect(test).not.toHaveBeenCalled();
      expect(matcher).not.toHaveBeenCalled();
      // Within the limit the call is made.
      const r = new Evaluation({ object: { s: 'aaa', p: '\\pL' } }, { budget: 10_000_000 }).evaluate(compiled('object.s.matches(object.p)'));
      expect(r).toMatchObject({ ok: true, value: true });
      expect(test).toHaveBeenCalled();
    } finally {
      test.mockRestore();
      matcher.mockRestore();
    }
  });

  it('a call within the limit is made and charged as before', () => {
    const r = new Evaluation({ object: { a: ['x', 'y'], b: ['y'] } }, { budget: 10_000_000 }).evaluate(compiled('sets.contains(object.a, object.b)'));
    expect(r).toMatchObject({ ok: true, value: true });
  });
});
