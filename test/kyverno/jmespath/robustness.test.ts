/**
 * Every registered function, called with every combination of up to three arguments drawn from a set of
 * awkward values, either answers JSON or fails with a JmesPathError: nothing else escapes the module.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, JmesPathError, listFunctions } from '../../../src/kyverno/jmespath/index.js';

const ARGS = ['`null`', '`true`', '`-1.5`', '`0`', '`1e300`', "''", "'x'", "'12Ki'", "'1h'", "'2021-01-02T15:04:05Z'", "'(('", '`[]`', '`[1, "a"]`', '`{}`', '`{"a": {"b": []}}`', '&a', 'missing'];

function isJson(v: unknown, depth = 0): boolean {
  if (depth > 50) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  if (typeof v === 'object') return Object.values(v as object).every((x) => isJson(x, depth + 1));
  return false;
}

describe('functions never throw anything but JmesPathError, and only return JSON', () => {
  for (const f of listFunctions()) {
    it(f.name, () => {
      const calls: string[] = [`${f.name}()`, `${f.name}(${ARGS.slice(0, 5).join(', ')})`];
      const threeOrMore = f.signature.includes('...') || (f.signature.match(/,/g) ?? []).length >= 2;
      for (const a of ARGS) {
        calls.push(`${f.name}(${a})`);
        for (const b of ARGS) {
          calls.push(`${f.name}(${a}, ${b})`);
          if (threeOrMore) for (const c of ['`null`', "'x'", '`2`', '`[]`', '&a']) calls.push(`${f.name}(${a}, ${b}, ${c})`);
        }
      }
      for (const expr of calls) {
        let r;
        try {
          r = evaluate(expr, { a: 1 }, { now: () => 0, random: () => 0.5 });
        } catch (e) {
          throw new Error(`${expr} threw ${String(e)}`);
        }
        if (r.ok) expect(isJson(r.value), `${expr} -> ${String(r.value)}`).toBe(true);
        else expect(r.error, expr).toBeInstanceOf(JmesPathError);
      }
    });
  }
});
