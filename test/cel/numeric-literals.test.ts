/**
 * Numeric literals as cel-go's grammar reads them (parser/gen/CEL.g4): a hex literal starts with a
 * lowercase `0x` (NUM_INT, NUM_UINT), so `0X10` is the literal 0 followed by the identifier X10, a
 * syntax error; its digits and the `u`/`U` suffix take either case.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, compileExpression } from '../../src/cel/index.js';

const env = new CelEnvironment();

function general(expr: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const c = env.compile(expr, { check: true });
  if (!c.ok) return c;
  const r = c.program.evaluate();
  return r.ok ? { ok: true, value: r.value } : r;
}

describe('hex literals', () => {
  for (const [expr, want] of [['0x1F', 31n], ['0xaBc', 2748n], ['-0x10', -16n]] as const) {
    it(`${expr} is ${want}`, () => expect(general(expr)).toEqual({ ok: true, value: want }));
  }
  it('0xffU is a uint', () => expect(String((general('0xffU') as { value: unknown }).value)).toBe('255'));

  for (const expr of ['0X10', '0X10u', '-0X1']) {
    it(`${expr} is a syntax error`, () => {
      const r = general(expr);
      expect(r.ok).toBe(false);
      expect((r as { message: string }).message).toContain("Syntax error: extraneous input 'X1");
      const k = compileExpression(expr, 'variable', { params: false });
      expect(k.ok).toBe(false);
      expect((k as { message: string }).message).toContain('Syntax error');
    });
  }
});
