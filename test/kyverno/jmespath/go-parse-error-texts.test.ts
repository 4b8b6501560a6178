/**
 * Parse failures that go-jmespath (parser.go and lexer.go, the same in Kyverno's fork and in 0.4.0)
 * returns as the Go library's own error, not as its `SyntaxError: …`: a JSON literal that json.Unmarshal
 * refuses (nud, `case tJSONLiteral: … if err != nil { return ASTNode{}, err }`), a quoted identifier
 * likewise (lexer consumeQuotedIdentifier) and an index or slice position that strconv.Atoi refuses
 * (parseIndexExpression, parseSliceExpression). Kyverno prints them as they are:
 * `incorrect query <q>: <error>` at run time, `invalid JMESPath query <q>: <error>` when it validates a
 * policy. They stay syntax errors here (the policy is refused at load).
 */
import { describe, expect, it } from 'vitest';
import { compile, evaluate, JmesPathSyntaxError } from '../../../src/kyverno/jmespath/index.js';

const cases: [string, string][] = [
  ['`-`', "invalid character ' ' in numeric literal"],
  ['`1.`', "invalid character ' ' after decimal point in numeric literal"],
  ['`[1,]`', "invalid character ']' looking for beginning of value"],
  ['a == `{"a":1}x`', "invalid character 'x' after top-level value"],
  ['``', 'unexpected end of JSON input'],
  ['`1e400`', 'json: cannot unmarshal number 1e400 into Go value of type float64'],
  ['a[-]', 'strconv.Atoi: parsing "-": invalid syntax'],
  ['a[99999999999999999999]', 'strconv.Atoi: parsing "99999999999999999999": value out of range'],
  ['a[:-99999999999999999999]', 'strconv.Atoi: parsing "-99999999999999999999": value out of range'],
  ['"\\x"', "invalid character 'x' in string escape code"],
  ['"a\tb"', "invalid character '\\t' in string literal"],
];

describe("go-jmespath's unwrapped parse errors", () => {
  for (const [expression, message] of cases) {
    it(expression, () => {
      const r = evaluate(expression, {});
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.kind).toBe('syntax');
      expect(r.error.message).toBe(message);
      expect(() => compile(expression)).toThrow(JmesPathSyntaxError);
    });
  }

  it('the parser and lexer errors of go-jmespath itself keep their SyntaxError prefix', () => {
    const r = evaluate('a[', {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^SyntaxError: /);
  });

  it("a projection followed by a token its right side cannot start with: parseProjectionRHS's 'Error'", () => {
    for (const expression of ['a[*]{a: b}', 'a[*]!b', 'a[*](b)', 'a[]{a: b}']) {
      const r = evaluate(expression, {});
      expect(r.ok ? r.value : r.error.message).toBe('SyntaxError: Error');
    }
  });
});

describe("go-jmespath's function name: the value of the node before '('", () => {
  // led(tLparen) takes `name := node.value`: a string literal and a call name a function as a field does.
  it.each([
    ["'abs'(`-2`)", 2],
    ['`"abs"`(`-2`)', 2],
    ['abs(`1`)(`-2`)', 2],
    ["to_upper('a')('b')", 'B'],
  ])('%s', (expression, expected) => {
    expect(evaluate(expression, {})).toEqual({ ok: true, value: expected });
  });
  it('a name no function has is an unknown function when called', () => {
    const r = evaluate("'nope'(`1`)", {});
    expect(r.ok ? r.value : r.error.kind).toBe('unknown-function');
    expect(compile("'nope'(`1`)").unknownFunctions).toEqual(['nope']);
  });
  it('a node with no string value (Go panics when it is called) is refused', () => {
    for (const expression of ['`1`(`2`)', '@(a)', 'a[0](b)']) {
      const r = evaluate(expression, {});
      expect(r.ok ? r.value : r.error.message).toBe('SyntaxError: Invalid function name');
    }
  });
});
