/** Precondition operators with Kyverno's typing rules (spec §9). */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { evaluateOperator, normalizeOperator, type OperatorName } from '../../src/kyverno/match/operators.js';

const op = (name: string) => {
  const n = normalizeOperator(name);
  if (!n) throw new Error(`no operator ${name}`);
  return n;
};
const check = (name: string, key: JsonValue, value: JsonValue) => evaluateOperator(op(name), key, value);

describe('operator names', () => {
  it('are case-insensitive and accept the singular aliases', () => {
    expect(normalizeOperator('equals')).toBe('equals');
    expect(normalizeOperator('Equal')).toBe('equals');
    expect(normalizeOperator('NOTEQUAL')).toBe('notequals');
    expect(normalizeOperator('AnyIn')).toBe('anyin');
    expect(normalizeOperator('DurationGreaterThanOrEquals')).toBe('durationgreaterthanorequals');
    expect(normalizeOperator('Matches')).toBeUndefined();
  });
});

describe('Equals / NotEquals', () => {
  const cases: [JsonValue, JsonValue, boolean][] = [
    ['abc', 'abc', true],
    ['abc', 'a*', true], // the value is a wildcard pattern
    ['a*', 'abc', false], // the key is not
    ['hello2', 'hello?', true],
    ['1h', '60m', true], // durations
    ['90s', '1m30s', true],
    ['1Gi', '1024Mi', true], // quantities
    ['500m', '0.5', true],
    ['1Gi', 'abc', false], // a quantity key with a non-quantity value is not equal
    [1, '1', true], // numeric key, numeric string value
    [1, 1, true],
    [1.5, '1.5', true],
    [1, 'one', false],
    [true, true, true],
    [true, 'true', false],
    [{ a: 1, b: [1] }, { b: [1], a: 1 }, true],
    [['a', 'b'], ['a', 'b'], true],
    [['a', 'b'], ['b', 'a'], false],
  ];
  for (const [key, value, expected] of cases) {
    it(`${JSON.stringify(key)} vs ${JSON.stringify(value)} → ${expected}`, () => {
      expect(check('Equals', key, value)).toBe(expected);
      expect(check('NotEquals', key, value)).toBe(!expected);
    });
  }
  it('a null key makes both false (Kyverno: unsupported key type in Equal/NotEqualHandler.Evaluate)', () => {
    for (const value of [null, 'x', 1] as JsonValue[]) {
      expect(check('Equals', null, value)).toBe(false);
      expect(check('NotEquals', null, value)).toBe(false);
    }
  });
});

describe('AnyIn / AllIn / AnyNotIn / AllNotIn', () => {
  const cases: [string, JsonValue, JsonValue, boolean][] = [
    ['AnyIn', 'CREATE', ['CREATE', 'UPDATE'], true],
    ['AnyIn', 'DELETE', ['CREATE', 'UPDATE'], false],
    ['AnyIn', ['a', 'x'], ['a', 'b'], true],
    ['AnyIn', ['x', 'y'], ['a', 'b'], false],
    ['AnyIn', 'prod-eu', ['prod-*'], true], // wildcards either way
    ['AnyIn', 'prod-*', ['prod-eu'], true],
    ['AnyIn', ['emptyDir', 'name'], 'emptyDir', true], // a single string value
    ['AnyIn', 'b', '["a", "b"]', true], // a JSON list in a string (ConfigMap data)
    ['AnyIn', 5, '1-10', true], // ranges
    ['AnyIn', 15, '1-10', false],
    ['AllIn', ['a', 'b'], ['a', 'b', 'c'], true],
    ['AllIn', ['a', 'x'], ['a', 'b', 'c'], false],
    ['AllIn', 'CREATE', ['CREATE', 'UPDATE'], true],
    ['AllIn', 'not-the-name', ['app'], false],
    ['AnyNotIn', ['a', 'x'], ['a', 'b'], true],
    ['AnyNotIn', ['a', 'b'], ['a', 'b'], false],
    ['AnyNotIn', 'external', ['external', 'nlb'], false],
    ['AnyNotIn', 'false', ['external', 'nlb'], true],
    ['AllNotIn', ['x', 'y'], ['a', 'b'], true],
    ['AllNotIn', ['a', 'y'], ['a', 'b'], false],
    ['AnyIn', 1000000, ['1e+06'], true], // Go prints large float64 keys in exponent form
    ['AnyIn', { a: 1 }, ['a'], false],
  ];
  for (const [name, key, value, expected] of cases) {
    it(`${name} ${JSON.stringify(key)} ${JSON.stringify(value)} → ${expected}`, () => {
      expect(check(name, key, value)).toBe(expected);
    });
  }
});

describe('numeric operators', () => {
  const cases: [string, JsonValue, JsonValue, boolean][] = [
    ['GreaterThan', 2, 1, true],
    ['GreaterThan', 1, 1, false],
    ['GreaterThanOrEquals', 1, '1', true],
    ['GreaterThanOrEquals', 2, 'abc', false],
    ['LessThan', '1Gi', '2Gi', true], // quantities
    ['LessThan', '500m', '1', true],
    ['GreaterThan', '2h', '90m', true], // durations
    ['GreaterThan', 7200, '1h', true], // seconds against a duration
    ['LessThanOrEquals', '1.2.3', '1.10.0', true], // semantic versions
    ['GreaterThan', '1.2.3', '1.2.3-rc.1', true],
    ['LessThan', '3.5', 4, true],
    ['GreaterThan', 'abc', 1, false],
    ['GreaterThan', null, 1, false],
  ];
  for (const [name, key, value, expected] of cases) {
    it(`${name} ${JSON.stringify(key)} ${JSON.stringify(value)} → ${expected}`, () => {
      expect(check(name, key, value)).toBe(expected);
    });
  }
});

describe('duration operators (deprecated)', () => {
  const table: [OperatorName, JsonValue, JsonValue, boolean][] = [
    ['durationgreaterthan', '2h', '1h', true],
    ['durationlessthanorequals', '30m', 1800, true],
    ['durationgreaterthanorequals', 59, '1m', false],
    ['durationlessthan', 'soon', '1h', false],
  ];
  for (const [name, key, value, expected] of table) {
    it(`${name} ${JSON.stringify(key)} ${JSON.stringify(value)} → ${expected}`, () => {
      expect(evaluateOperator(name, key, value)).toBe(expected);
    });
  }
});

describe('deprecated In / NotIn', () => {
  it('a scalar key matches list items as a wildcard either way, a string value as a wildcard or a JSON list', () => {
    expect(check('In', 'a', ['a', 'b'])).toBe(true);
    expect(check('In', 'a*', ['abc'])).toBe(true);
    expect(check('In', 'abc', ['a*'])).toBe(true);
    expect(check('In', 1.5, [1, 1.5])).toBe(true); // printed as Go prints them
    expect(check('In', 'prefix-x', 'prefix-*')).toBe(true);
    expect(check('In', 'a', '["a", "b"]')).toBe(true);
    expect(check('NotIn', 'x', ['a', 'b'])).toBe(true);
    expect(check('NotIn', 'a', '["a"]')).toBe(false);
    expect(check('NotIn', 'a', 'null')).toBe(true); // json.Unmarshal of null: an empty list
  });
  it('a value it cannot read makes both false', () => {
    for (const value of ['not-json', '["a", 1]', 12345, { a: 'a' }] as JsonValue[]) {
      expect(check('In', 'a', value)).toBe(false);
      expect(check('NotIn', 'a', value)).toBe(false);
    }
  });
  it('a list key: every item exactly in a list of strings', () => {
    expect(check('In', ['a', 'b'], ['a', 'b', 'c'])).toBe(true);
    expect(check('In', ['a*'], ['abc'])).toBe(false);
    expect(check('NotIn', ['a', 'x'], '["a", "b"]')).toBe(true);
    expect(check('In', ['a'], ['a', 1])).toBe(false);
    expect(check('NotIn', ['a'], ['a', 1])).toBe(false);
    // a one-item list equal to a string value is "in" it for both operators (Kyverno's setExistsInArray)
    expect(check('In', ['a'], 'a')).toBe(true);
    expect(check('NotIn', ['a'], 'a')).toBe(true);
  });
});

describe('AnyIn family: what each side may be (operator/anyin.go, allin.go)', () => {
  const cases: [string, JsonValue, JsonValue, boolean][] = [
    // a scalar key against a number or boolean value: a type Kyverno does not read, all four are false
    ['AnyIn', 5, 5, false],
    ['AnyNotIn', 5, 6, false],
    // a list key against a number or boolean: one item for the Any forms, unreadable for the All forms
    ['AnyIn', [true, false], true, true],
    ['AnyNotIn', [true, false], true, true],
    ['AllIn', [true], true, false],
    ['AllNotIn', [true], false, false],
    // a scalar key in a JSON list: exact; a list key: wildcards either way
    ['AnyIn', 'a*', '["abc"]', false],
    ['AnyIn', ['a*'], '["abc"]', true],
    // JSON text that is not a list of strings is unreadable; other text is the one item
    ['AnyNotIn', 'x', '123', false],
    ['AnyNotIn', 'x', 'abc', true],
    ['AnyIn', 'x', 'null', false],
    // JSON after JSON's blanks is JSON; text that only starts like JSON, and words, are the one item
    ['AnyIn', 'b', ' \n\t["a", "b"]', true],
    ['AnyNotIn', 'x', ' \r\n5', false],
    ['AnyNotIn', 'x', 'false', false],
    ['AnyNotIn', 'x', 'tru', true],
    ['AnyNotIn', 'x', '5x', true],
    ['AnyNotIn', 'x', '[a', true],
    ['AnyNotIn', 'x', '{"a": 1', true],
    ['AnyNotIn', 'x', 'CREATE', true],
    ['AnyNotIn', 'x', '', true],
    ['AllNotIn', ['x'], 'nul', true],
    ['AllNotIn', ['x'], 'null', true],
    ['AnyIn', ['x'], '\u00a0["x"]', false],
    // a wildcard match comes before a range: "1-3" as a key is the value itself
    ['AnyIn', '1-3', '1-3', true],
    // AnyNotIn over a list and a range asks whether some key is in the range written with `!-`
    ['AnyNotIn', ['abc'], '1-3', false],
    ['AllNotIn', ['abc'], '1-3', true],
    ['AnyNotIn', ['1', '5'], '1-3', true],
  ];
  for (const [name, key, value, expected] of cases) {
    it(`${name} ${JSON.stringify(key)} ${JSON.stringify(value)} → ${expected}`, () => {
      expect(check(name, key, value)).toBe(expected);
    });
  }
});
