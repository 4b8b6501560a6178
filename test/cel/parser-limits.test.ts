/**
 * The parser's depth limits and long chains, as cel-go's parser (parser/parser.go, parser/helper.go)
 * with Kubernetes' options (none: MaxRecursionDepth 250, expression size 100,000 code points): `&&`/`||`
 * chains are balanced trees, any other chain or nesting past the limit is refused with cel-go's message,
 * never a JavaScript stack overflow. The cases with a limit of 32 are cel-go's parser_test.go ones.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/cel/index.js';
import { parse } from '../../src/cel/engine/parser.js';
import type { Expr } from '../../src/cel/engine/ast.js';

function issues(source: string, maxRecursionDepth?: number): string {
  const r = parse(source, maxRecursionDepth ? { maxRecursionDepth } : {});
  return r.issues.map((i) => (i.offset < 0 ? `-1: ${i.message}` : i.message)).join(' | ') || 'ok';
}

function depth(e: Expr): number {
  if (e.kind !== 'call') return 1;
  return 1 + Math.max(0, ...e.args.map(depth));
}

const chain = (n: number, term: (i: number) => string, op: string) => Array.from({ length: n }, (_, i) => term(i)).join(` ${op} `);

describe('parser limits (cel-go)', () => {
  it('balances && and || chains as cel-go does: 2000 terms compile', () => {
    const and = compileExpression(chain(2000, (i) => `object.metadata.name != "n${i}"`, '&&'), 'matchCondition', { params: false });
    expect(and.ok || and.message).toBe(true);
    const or = compileExpression(chain(2000, () => 'false', '||'), 'variable', { params: false });
    expect(or.ok || or.message).toBe(true);
    const r = parse(chain(1024, (i) => `x${i}`, '&&'));
    expect(depth(r.expr!)).toBe(11);
    // four terms: (a && b) && (c && d), cel-go's balancedTree
    const four = parse('a && b && c && d').expr!;
    expect(four.kind === 'call' && four.args.map((a) => a.kind)).toEqual(['call', 'call']);
  });

  it('refuses long left-associative chains with "max recursion depth exceeded"', () => {
    const plus = compileExpression(chain(1400, () => '1', '+'), 'variable', { params: false });
    expect(plus.ok || plus.message).toContain('ERROR: <input>:-1:0: max recursion depth exceeded');
    expect(issues(chain(251, () => '1', '+'))).toBe('ok');
    expect(issues(chain(252, () => '1', '+'))).toBe('-1: max recursion depth exceeded');
    expect(issues('object' + '.a'.repeat(251))).toBe('-1: max recursion depth exceeded');
    expect(issues('object' + '.a'.repeat(250))).toBe('ok');
  });

  it("matches cel-go's parser_test cases at MaxRecursionDepth(32)", () => {
    expect(issues(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['not fine']]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, 32)).toBe('-1: expression recursion limit exceeded: 32');
    expect(issues(chain(34, (i) => `${i + 1}`, '+'), 32)).toBe('-1: max recursion depth exceeded');
    expect(issues(chain(33, (i) => `${i + 1}`, '+'), 32)).toBe('ok');
    expect(issues('a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F.G.H', 32)).toBe('-1: max recursion depth exceeded');
    expect(issues(`a${Array.from({ length: 33 }, (_, i) => `[${i + 1}]`).join('')}`, 32)).toBe('-1: max recursion depth exceeded');
    expect(issues(`a < ${chain(33, (i) => `${i + 1}`, '<')}`, 32)).toBe('-1: max recursion depth exceeded');
    // the depth of the index chains (20) plus the relation operators (13)
    const ix = `a${Array.from({ length: 20 }, (_, i) => `[${i + 1}]`).join('')}`;
    expect(issues(chain(14, () => ix, '!='), 32)).toBe('-1: max recursion depth exceeded');
    expect(issues(chain(13, () => ix, '!='), 32)).toBe('ok');
  });

  it('refuses deep nesting with the parse listener message', () => {
    expect(issues('['.repeat(251) + '1' + ']'.repeat(251))).toBe('-1: expression recursion limit exceeded: 250');
    expect(issues('['.repeat(249) + '1' + ']'.repeat(249))).toBe('ok');
    expect(issues('('.repeat(300) + '1' + ')'.repeat(300))).toBe('-1: expression recursion limit exceeded: 250');
  });
});

describe('number literals out of range (cel-go parser_test.go)', () => {
  it('refuses a double literal past the double range, as strconv.ParseFloat does, and reads one too small as 0', () => {
    const error = (source: string) => {
      const r = compileExpression(source, 'variable', { params: false });
      return r.ok ? 'ok' : r.message.split('\n')[0];
    };
    expect(error('1.99e90000009')).toBe('compilation failed: ERROR: <input>:1:1: invalid double literal');
    expect(error('[1.0, -1e400]')).toBe('compilation failed: ERROR: <input>:1:7: invalid double literal');
    expect(error('0xFFFFFFFFFFFFFFFFF')).toBe('compilation failed: ERROR: <input>:1:1: invalid int literal');
    expect(error('0xFFFFFFFFFFFFFFFFFu')).toBe('compilation failed: ERROR: <input>:1:1: invalid uint literal');
    expect(issues('1e-400 == 0.0 && 1.7976931348623157e308 > 0.0')).toBe('ok');
  });
});
