/**
 * Kyverno's condition-operator tables (operator-tables.json, data transcribed from kyverno/kyverno @
 * 111e07bbecc6: pkg/engine/variables/evaluate_test.go TestEvaluate and the Evaluate tables of
 * pkg/engine/variables/operator/*_test.go; the setExistsInArray / isIn / isNotIn tables of in_test.go as
 * In / NotIn conditions over a list key, operator_test.go's case-insensitive names and parseDuration
 * tables as Duration conditions whose outcome follows from the durations the test expects, an error
 * giving false). Go test keys typed int/int64 are JSON numbers here, as every value of an admission
 * request is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { evaluateOperator, normalizeOperator } from '../../../src/kyverno/match/operators.js';

interface Case {
  source: string;
  operator: string;
  key: JsonValue;
  value: JsonValue;
  result: boolean;
}

const cases = JSON.parse(readFileSync(new URL('./operator-tables.json', import.meta.url), 'utf8')) as Case[];

describe("Kyverno's operator tables", () => {
  const bySource = new Map<string, Case[]>();
  for (const c of cases) bySource.set(c.source, [...(bySource.get(c.source) ?? []), c]);
  for (const [source, list] of bySource) {
    it(`${source} (${list.length} cases)`, () => {
      const wrong = list.filter((c) => {
        const op = normalizeOperator(c.operator);
        if (!op) throw new Error(`unknown operator ${c.operator}`);
        return evaluateOperator(op, c.key, c.value) !== c.result;
      });
      expect(wrong.map((c) => `${c.operator} ${JSON.stringify(c.key)} ${JSON.stringify(c.value)} → ${c.result}`)).toEqual([]);
    });
  }
});
