/**
 * Kyverno's pattern-tree tables (match-pattern-tables.json, data transcribed from kyverno/kyverno @
 * 111e07bbecc6 pkg/engine/validate/validate_test.go; pkg/engine/wildcards/wildcards_test.go): a resource
 * against a pattern with anchors, as the value of a mutate condition anchor is checked. `not-pass` marks
 * cases whose Go test only asserts that the pattern does not pass (its RuleStatusFail cases are not
 * checked further there). The wildcards_test.go cases call ExpandInMetadata, which validateMap applies
 * first: its NilSafety and JMESPathNil cases only assert that it does not panic and what it keeps (string
 * values only), so their result is what MatchPattern then gives, derived.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { matchPattern } from '../../../src/kyverno/match/match-pattern.js';

interface Case {
  source: string;
  pattern: JsonValue;
  resource: JsonValue;
  result: 'pass' | 'skip' | 'not-pass';
}

const cases = JSON.parse(readFileSync(new URL('./match-pattern-tables.json', import.meta.url), 'utf8')) as Case[];

describe("Kyverno's MatchPattern tables", () => {
  for (const c of cases) {
    it(c.source, () => {
      const result = matchPattern(c.resource, c.pattern);
      if (c.result === 'not-pass') expect(result).not.toBe('pass');
      else expect(result).toBe(c.result);
    });
  }
});
