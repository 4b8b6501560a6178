/**
 * Kyverno's value-pattern tables (pattern-tables.json, data transcribed from kyverno/kyverno @
 * 111e07bbecc6 pkg/engine/pattern/pattern_test.go): one value against one pattern, as anchors in
 * mutate overlays and ranges in the In operators use them. `validateString(v, p, op)` cases are written
 * as the pattern `<op>p`; Go test values typed int are JSON numbers here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { valueMatches } from '../../../src/kyverno/match/pattern.js';

interface Case {
  source: string;
  value: JsonValue;
  pattern: JsonValue;
  result: boolean;
}

const cases = JSON.parse(readFileSync(new URL('./pattern-tables.json', import.meta.url), 'utf8')) as Case[];

describe("Kyverno's pattern tables", () => {
  const bySource = new Map<string, Case[]>();
  for (const c of cases) bySource.set(c.source, [...(bySource.get(c.source) ?? []), c]);
  for (const [source, list] of bySource) {
    it(`${source} (${list.length} cases)`, () => {
      const wrong = list.filter((c) => valueMatches(c.value, c.pattern) !== c.result);
      expect(wrong.map((c) => `${JSON.stringify(c.value)} ~ ${JSON.stringify(c.pattern)} → ${c.result}`)).toEqual([]);
    });
  }
});
