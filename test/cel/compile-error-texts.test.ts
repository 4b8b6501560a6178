/**
 * Compile errors printed as cel-go's Errors.ToDisplayString prints them (common/errors.go): sorted by
 * line and column, at most the first 100 reported, then `N more errors were truncated`. Each error
 * repeats its source line, so without the cap a long line of undeclared names made a message of
 * hundreds of megabytes and minutes of work.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, compileExpression } from '../../src/cel/index.js';

function message(expr: string): string {
  const c = compileExpression(expr, 'variable', { params: false });
  if (c.ok) throw new Error('expected a compile error');
  return c.message;
}

describe('compile error texts', () => {
  it('sorts errors by position (the function name before its arguments)', () => {
    const m = message('[1].existsOne(x, y, z, true)');
    const positions = [...m.matchAll(/ERROR: <input>:(\d+):(\d+):/g)].map((x) => x[2]);
    expect(positions).toEqual(['14', '15', '18', '21']);
    expect(m).toMatch(/^compilation failed: ERROR: <input>:1:14: undeclared reference to 'existsOne' \(in container ''\)/);
  });

  it('sorts across lines by line, then column', () => {
    const env = new CelEnvironment();
    const c = env.compile('[1].foo(a,\nb)');
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect([...c.message.matchAll(/ERROR: <input>:(\d+:\d+):/g)].map((x) => x[1])).toEqual(['1:8', '1:9', '2:1']);
  });

  it('reports the first 100 errors and counts the rest', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `a${i}`);
    const m = message(`[${names.join(', ')}]`);
    expect(m.match(/ERROR: <input>/g)).toHaveLength(100);
    expect(m).toContain("undeclared reference to 'a99' (in container '')");
    expect(m).not.toContain("'a100'");
    expect(m.endsWith('\n4900 more errors were truncated')).toBe(true);
    expect(m.length).toBeLessThan(100 * 2 * 40_000);
  });

  it('keeps a message of exactly 100 errors whole', () => {
    const names = Array.from({ length: 100 }, (_, i) => `a${i}`);
    const m = message(`[${names.join(', ')}]`);
    expect(m.match(/ERROR: <input>/g)).toHaveLength(100);
    expect(m).not.toContain('truncated');
  });
});
