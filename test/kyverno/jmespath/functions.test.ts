import { describe, expect, it } from 'vitest';
import { evaluate, type EvaluateOptions } from '../../../src/kyverno/jmespath/index.js';
import { arithmeticVectors, encodingVectors, goDetailVectors, miscVectors, objectVectors, regexVectors, stringVectors, timeVectors, type Vector } from './vectors.js';
import { upstreamExtraVectors } from './upstream-extra.js';

/** A fixed clock (2024-01-01T01:00:00Z) and a seeded generator make every vector deterministic. */
function options(): EvaluateOptions {
  let seed = 42;
  return {
    now: () => Date.UTC(2024, 0, 1, 1, 0, 0),
    random: () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    },
  };
}

function run(group: string, vectors: Vector[]) {
  describe(group, () => {
    for (const v of vectors) {
      it(v.expr, () => {
        const r = evaluate(v.expr, v.data ?? {}, options());
        if (v.error !== undefined) {
          expect(r.ok, r.ok ? `unexpected result ${JSON.stringify(r.value)}` : '').toBe(false);
          if (!r.ok) expect(r.error.message).toContain(v.error);
        } else {
          if (!r.ok) throw r.error;
          expect(r.value).toEqual(v.result);
        }
      });
    }
  });
}

run('strings', stringVectors);
run('regex and wildcards', regexVectors);
run('objects', objectVectors);
run('arithmetic', arithmeticVectors);
run('upstream extra (arithmetic_test.go, functions_test.go)', upstreamExtraVectors);
run('encoding', encodingVectors);
run('time', timeVectors);
run('semver, images, random, urls', miscVectors);
run('Go formatting and parsing details', goDetailVectors);

describe('random', () => {
  it('draws from the injected generator and honours repetition bounds', () => {
    const lengths = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const r = evaluate("random('a{3}b{2,4}')", {}, { random: () => (i % 10) / 10 });
      if (!r.ok) throw r.error;
      expect(r.value).toMatch(/^aaab{2,4}$/);
      lengths.add((r.value as string).length);
    }
    expect([...lengths].sort()).toEqual([5, 6, 7]);
  });
  it("generates what Go's POSIX syntax means by octal escapes and stacked quantifiers (each output matches its pattern)", () => {
    const cases: [string, RegExp][] = [
      ['\\101\\0\\a', /^A\x00\x07$/],
      ['a**b', /^a*b$/],
      ['a{2}{3}', /^a{6}$/],
      ['x+?y', /^x*y$/],
      ['[[:alpha:]][[:^digit:]]', /^[A-Za-z]\D$/],
    ];
    for (const [pattern, re] of cases) {
      for (let i = 0; i < 5; i++) {
        const r = evaluate('random(@)', pattern, options());
        if (!r.ok) throw r.error;
        expect(r.value, pattern).toMatch(re);
      }
    }
  });
  it('is random by default', () => {
    const seen = new Set(Array.from({ length: 20 }, () => (evaluate("random('[a-z]{12}')", {}) as { value: string }).value));
    expect(seen.size).toBeGreaterThan(15);
  });
});
