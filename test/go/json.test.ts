/**
 * How Go prints values (src/go/json.ts, sprint.ts): encoding/json for values spliced into longer
 * strings and `to_string`, fmt.Sprint for the `In` operator families and type-error messages. The
 * engine's former copies sorted map keys in UTF-16 order and printed -0 as 0; Go sorts keys by UTF-8
 * bytes (code points) and keeps the sign of a float64 zero.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { goJsonStringify } from '../../src/go/index.js';
import { goSprint } from '../../src/go/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';

/** Key U+FFFD sorts before U+1F600 in code point order, after it in UTF-16 order. */
const keys: JsonObject = { '😀': 1, '\ufffd': 2 };

const subst = (text: string, object: JsonObject) =>
  substituteAll(text, { ctx: new JsonContext(kyvernoQuery, { request: { object } }), isDelete: false });

describe('encoding/json', () => {
  it('sorts map keys by code point and keeps -0, inside a substituted string', () => {
    expect(subst('m={{ request.object.m }}', { m: keys })).toBe('m={"\ufffd":2,"😀":1}');
    expect(subst('n={{ request.object.n }}', { n: -0 })).toBe('n=-0');
  });
  it('escapes as Go does', () => {
    expect(goJsonStringify({ b: '<&>', a: [1e21, 1.5e-7, '\u2028'] } as JsonValue)).toBe('{"a":[1e+21,1.5e-7,"\\u2028"],"b":"\\u003c\\u0026\\u003e"}');
  });
});

describe('fmt.Sprint', () => {
  it('prints maps with keys sorted by code point, floats as %v', () => {
    expect(goSprint({ list: [1e6, 0.5, null, true], ...keys })).toBe('map[list:[1e+06 0.5 <nil> true] \ufffd:2 😀:1]');
  });
  it('is what the In operators compare', () => {
    expect(evaluateOperator('anyin', [keys], ['map[\ufffd:2 😀:1]'])).toBe(true);
  });
});
