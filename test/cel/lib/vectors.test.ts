import { describe, expect, it } from 'vitest';
import { loadVectorCases, runCaseOnEngine, type VectorCase } from './harness.js';

/**
 * Cases whose transcription is not a CEL expression. `deep equals` is a comment of the Go test
 * ("array, map and object types use structural equality (aka "deep equals")") that the transcriber
 * took for an expression; the cases under that comment are transcribed and run.
 */
const NOT_EXPRESSIONS = new Set(['deep equals']);

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
    it(title(c), () => {
      const outcome = runCaseOnEngine(c);
      expect(outcome.ok ? 'ok' : outcome.detail).toBe('ok');
    });
  }
});
