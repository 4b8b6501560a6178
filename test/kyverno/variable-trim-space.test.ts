/**
 * Kyverno trims a variable's inside and every query with Go's strings.TrimSpace
 * (pkg/engine/variables/vars.go replaceBracesAndTrimSpaces, pkg/engine/context/evaluate.go Query), whose
 * spaces are unicode.IsSpace's: U+0085 (NEL) is one, U+FEFF (BOM) is not; JavaScript's trim() has them
 * the other way round. go-jmespath's lexer skips only ' ', \t, \n and \r, and calls anything else it
 * cannot read an unknown char.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';

const context = () => new JsonContext(kyvernoQuery, { a: 'A' });
const subst = (text: string): JsonValue | string => {
  try {
    return substituteAll(text, { ctx: context(), isDelete: false });
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

describe("Go's TrimSpace around variables and queries", () => {
  it('U+0085 around a variable is trimmed', () => {
    expect(subst('{{ a\u0085}}')).toBe('A');
    expect(subst('x{{\u0085a }}')).toBe('xA');
    expect(subst('x{{\u0085}}')).toBe('error: failed to resolve  at path : invalid query (nil)');
  });
  it('a shallow variable behind U+0085 is still shallow: the pass ends there', () => {
    expect(subst('x{{\u0085- a }}{{ a }}')).toBe('xA{{ a }}');
  });
  it('U+FEFF is no space: the lexer meets it', () => {
    expect(subst('{{\uFEFFa}}')).toBe("error: failed to resolve \uFEFFa at path : incorrect query \uFEFFa: SyntaxError: Unknown char: '\\ufeff'");
  });
  it('a query is trimmed before it is compiled, and refused when nothing is left', () => {
    expect(context().query('a\u0085')).toBe('A');
    expect(context().query('\u00a0a\u2028')).toBe('A');
    expect(() => context().query('\u0085\u3000')).toThrow('invalid query (nil)');
  });
});
