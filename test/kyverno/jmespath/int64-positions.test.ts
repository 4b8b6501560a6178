/**
 * Index and slice positions are Go ints (strconv.Atoi in go-jmespath's parser: int64), so a position
 * past 2^53 still parses: it lies beyond the array, before or after it. Only what int64 cannot hold is a
 * syntax error, with Atoi's own message (go-jmespath returns it unwrapped). Answers from go-jmespath 0.4.0 (the `jp` tool) on {"a": [1, 2, 3]}.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const data = { a: [1, 2, 3] };

const answers: [string, unknown][] = [
  ['a[9007199254740993]', null],
  ['a[-9007199254740993]', null],
  ['a[9223372036854775807]', null],
  ['a[-9223372036854775808]', null],
  ['a[::-9223372036854775808]', [3]],
  ['a[::9223372036854775807]', [1]],
  ['a[-9223372036854775808:]', [1, 2, 3]],
  ['a[:-9223372036854775808:-1]', [3, 2, 1]],
  ['a[9223372036854775807:]', []],
  ['a[-9223372036854775808::-1]', []],
];

const outOfRange = ['a[9223372036854775808]', 'a[-9223372036854775809]', 'a[1:99999999999999999999]'];

describe('int64 positions', () => {
  it.each(answers)('%s', (expression, expected) => {
    expect(evaluate(expression, data)).toEqual({ ok: true, value: expected });
  });
  it.each(outOfRange)('%s is out of range', (expression) => {
    const r = evaluate(expression, data);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^strconv\.Atoi: parsing "-?\d+": value out of range$/);
  });
});
