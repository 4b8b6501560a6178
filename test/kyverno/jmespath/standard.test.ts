/**
 * Replays answers that go-jmespath 0.4.0 (the `jp` tool) gave for the corpus in oracle/corpus.mjs.
 * Kyverno's fork differs from go-jmespath only where a bare field access misses a key (an error in the
 * fork, null in go-jmespath) and where Kyverno registers functions of its own; those cases are
 * checked here against that rule, and in unresolved.test.ts and functions.test.ts in detail.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { evaluate, listFunctions } from '../../../src/kyverno/jmespath/index.js';

interface Case {
  doc: string;
  expression: string;
  result?: JsonValue;
  error?: boolean;
}
const oracle = JSON.parse(readFileSync(new URL('./oracle/go-jmespath-oracle.json', import.meta.url), 'utf8')) as {
  docs: Record<string, JsonValue>;
  cases: Case[];
};

const STANDARD = new Set(['abs', 'avg', 'ceil', 'contains', 'ends_with', 'floor', 'join', 'keys', 'length', 'map', 'max', 'max_by', 'merge', 'min', 'min_by', 'not_null', 'reverse', 'sort', 'sort_by', 'starts_with', 'to_array', 'to_number', 'to_string', 'type', 'values']);
const kyvernoNames = new Set(listFunctions().map((f) => f.name).filter((n) => !STANDARD.has(n)));
const usesKyvernoFunction = (e: string) => [...e.matchAll(/([a-z_]+)\s*\(/g)].some((m) => kyvernoNames.has(m[1]));
/** Go iterates maps in random order: results built from object values are compared as multisets. */
const mapOrdered = (e: string) => /\*|keys\(|values\(/.test(e);

function canonical(v: JsonValue, unordered: boolean): JsonValue {
  if (Array.isArray(v)) {
    const items = v.map((x) => canonical(x, unordered));
    return unordered ? items.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : items;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, JsonValue>)[k], unordered)]));
  }
  return v;
}

describe('standard JMESPath against go-jmespath', () => {
  const cases = oracle.cases.filter((c) => !usesKyvernoFunction(c.expression));
  it('covers the corpus', () => {
    expect(cases.length).toBeGreaterThan(900);
  });
  for (const c of cases) {
    it(`${c.doc}: ${c.expression}`, () => {
      const r = evaluate(c.expression, oracle.docs[c.doc]);
      if (!r.ok && r.error.kind === 'unresolved') {
        // The fork's only difference: go-jmespath answers null where Kyverno reports the missing key.
        expect(c.error ?? false).toBe(false);
        expect(c.result).toBeNull();
        return;
      }
      if (c.error) {
        expect(r.ok, r.ok ? JSON.stringify(r.value) : '').toBe(false);
        return;
      }
      if (!r.ok) throw r.error;
      const unordered = mapOrdered(c.expression);
      expect(canonical(r.value, unordered)).toEqual(canonical(c.result!, unordered));
    });
  }
});

describe('community-edition syntax is rejected as in Kyverno', () => {
  for (const e of ['$', 'let $x = `1` in $x', 'a - b', 'a * b', 'a / b', 'a % b', 'a // b']) {
    it(e, () => {
      const r = evaluate(e, { a: 1, b: 2 });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.kind).toBe('syntax');
    });
  }
  it('string slices are null, as in the original specification', () => {
    expect(evaluate("'abc'[0:2]", {})).toEqual({ ok: true, value: null });
    expect(evaluate('s[::-1]', { s: 'abc' })).toEqual({ ok: true, value: null });
  });
  it('community-only functions are unknown', () => {
    for (const f of ['lower(s)', 'upper(s)', 'find_first(s, `"a"`)', 'group_by(@, &a)', 'from_items(`[]`)', 'zip(`[]`, `[]`)', 'pad_left(s, `3`)']) {
      const r = evaluate(f, { s: 'abc' });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.kind).toBe('unknown-function');
    }
  });
  it('ordering comparisons are numeric only (strings give null)', () => {
    expect(evaluate("'a' < 'b'", {})).toEqual({ ok: true, value: null });
  });
});
