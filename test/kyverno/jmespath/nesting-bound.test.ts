/**
 * How deep an expression may nest (src/kyverno/jmespath/nesting.ts). go-jmespath has no bound; here
 * the parser, compiler and evaluator recurse per level, and the JavaScript stack used to be the bound:
 * an expression compiled or failed by how much stack its first caller left, and the compile cache kept
 * that answer for every later caller (`((…a…))` 1,500 deep: `1` when first read near the top of the
 * stack, 'too deeply nested' for good when first read deep in it).
 */
import { describe, expect, it } from 'vitest';
import { clearCompileCache, evaluate } from '../../../src/kyverno/jmespath/index.js';
import { MAX_EXPRESSION_DEPTH } from '../../../src/kyverno/jmespath/nesting.js';

const forms: Record<string, (levels: number) => string> = {
  parentheses: (n) => `${'('.repeat(n - 1)}a${')'.repeat(n - 1)}`,
  'sub-expressions': (n) => `a${'.a'.repeat(n - 1)}`,
  pipes: (n) => `a${'|a'.repeat(n - 1)}`,
  'or chain': (n) => `a${'||a'.repeat(n - 1)}`,
  'function calls': (n) => `${'not_null('.repeat(n - 1)}a${')'.repeat(n - 1)}`,
  'multi-select lists': (n) => `${'['.repeat(n - 1)}a${']'.repeat(n - 1)}`,
  // Ten sub-expressions around every pair of parentheses: the parser recurses a tenth as deep.
  'chains in parentheses': (n) => {
    const pairs = Math.floor((n - 1) / 10);
    return `${'('.repeat(pairs)}a${'.a'.repeat((n - 1) % 10)}${`${'.a'.repeat(10)})`.repeat(pairs)}`;
  },
};

/**
 * Runs `fn` deeper and deeper in the stack, from the deepest frame where it can run at all, until
 * `reached` accepts its result: the first result that `reached` accepts, with the stack nearly used up.
 */
function nearStackEnd<T>(fn: () => T, reached: (value: T) => boolean): T {
  let result: { value: T } | undefined;
  const down = (): void => {
    try {
      down();
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
    if (result !== undefined) return;
    try {
      const value = fn();
      if (reached(value)) result = { value };
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
  };
  down();
  return result!.value;
}

const data = { a: 1 };

describe('the nesting bound of expressions', () => {
  for (const [name, form] of Object.entries(forms)) {
    it(`${name}: ${MAX_EXPRESSION_DEPTH} levels run, one more is refused with a syntax error`, () => {
      expect(evaluate(form(MAX_EXPRESSION_DEPTH), data).ok).toBe(true);
      const r = evaluate(form(MAX_EXPRESSION_DEPTH + 2), data);
      expect(r.ok ? r.value : { kind: r.error.kind, message: r.error.message }).toEqual({ kind: 'syntax', message: 'SyntaxError: expression too deeply nested' });
    });
  }

  it('an expression within the bound runs under a caller 5,000 frames deep', () => {
    const deep = (n: number): ReturnType<typeof evaluate> => (n === 0 ? evaluate(forms['function calls'](MAX_EXPRESSION_DEPTH), data) : deep(n - 1));
    clearCompileCache();
    expect(deep(5_000)).toEqual({ ok: true, value: 1 });
  });

  it('a compile that ran out of stack is not kept: the next caller gets the expression’s own answer', () => {
    const expression = forms.parentheses(900);
    clearCompileCache();
    // The first frame, from the stack's end, where the failure is the compiler's (a syntax error), not
    // the evaluator's on the way in (a runtime error, never cached anyway).
    const starved = nearStackEnd(
      () => evaluate(expression, data),
      (r) => r.ok || r.error.kind === 'syntax',
    );
    expect(starved.ok ? starved : starved.error.message).toBe('SyntaxError: expression too deeply nested');
    expect(evaluate(expression, data)).toEqual({ ok: true, value: 1 });
  });
});
