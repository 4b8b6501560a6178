import { describe, expect, it } from 'vitest';
import { loadVectorCases, runCaseOnEngine, type VectorCase } from './harness.js';

/**
 * Cases whose transcription is not a CEL expression. `deep equals` is a comment of the Go test
 * ("array, map and object types use structural equality (aka "deep equals")") that the transcriber
 * took for an expression; the cases under that comment are transcribed and run.
 */
const NOT_EXPRESSIONS = new Set(['deep equals']);

/**
 * Cases that need integers beyond 2^53 read exactly from a JSON document (MaxInt64 fields): a documented
 * limitation (README.md, "Numbers"; admitted objects are read as IEEE doubles), not a CEL difference.
 */
const INT64_FROM_JSON = 'validation_test.go/TestValidationExpressions/integers';
const NEEDS_EXACT_INT64 = new Set([
  `${INT64_FROM_JSON} :: type(self.val1) == int`,
  `${INT64_FROM_JSON} :: type(self.val5) == int`,
  `${INT64_FROM_JSON} :: self.val1 + 1 == 0`,
  `${INT64_FROM_JSON} :: self.val5 + 1 == 0`,
]);

const cases = loadVectorCases();

const title = (c: VectorCase) => `${c.file} ${c.vector} :: ${c.expression}`;

describe('library vectors on the Kubernetes CEL engine (src/cel/index.ts)', () => {
  it('are all loaded', () => {
    expect(cases.length).toBeGreaterThan(150);
  });

  for (const c of cases) {
    if (NOT_EXPRESSIONS.has(c.expression)) {
      it.skip(`${title(c)} (transcription artefact, not CEL)`, () => {});
      continue;
    }
    if (NEEDS_EXACT_INT64.has(`${c.vector} :: ${c.expression}`)) {
      it.skip(`${title(c)} (needs exact int64 from JSON: README "Numbers")`, () => {});
      continue;
    }
    it(title(c), () => {
      const outcome = runCaseOnEngine(c);
      expect(outcome.ok ? 'ok' : outcome.detail).toBe('ok');
    });
  }
});
