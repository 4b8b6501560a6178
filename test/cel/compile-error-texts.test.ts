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

describe('source lines under an error (cel-go common/error.go ToDisplayString)', () => {
  it('marks a column holding a non-ASCII character with a full-width caret', () => {
    // wideInd: `if _, sz := utf8.DecodeRune(bytes); sz > 1 { indLine += wideInd }`.
    // The lexer skips the character and the parser reads what is left, as ANTLR does in cel-go.
    const expecting = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
    expect(message('1 + é')).toBe(
      "compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: 'é'\n | 1 + é\n | ....\uff3e\n" +
        `ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ${expecting}\n | 1 + é\n | ....\uff0e^`,
    );
    expect(message("'😀' + 😀")).toBe(
      "compilation failed: ERROR: <input>:1:7: Syntax error: token recognition error at: '😀'\n | '😀' + 😀\n | .\uff0e....\uff3e\n" +
        `ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting ${expecting}\n | '😀' + 😀\n | .\uff0e....\uff0e^`,
    );
    expect(message('1 + é + a')).toBe(
      "compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: 'é'\n | 1 + é + a\n | ....\uff3e\n" +
        `ERROR: <input>:1:7: Syntax error: extraneous input '+' expecting ${expecting}\n | 1 + é + a\n | ....\uff0e.^`,
    );
    expect(message('1 + a')).toBe("compilation failed: ERROR: <input>:1:5: undeclared reference to 'a' (in container '')\n | 1 + a\n | ....^");
  });

  it('leaves out a line longer than 16384 UTF-8 bytes (maxSnippetLength)', () => {
    const pad = (bytes: number) => `'${'x'.repeat(bytes - 2)}'`;
    // 16384 bytes: printed; 16385: only the position and the message.
    const atLimit = `${pad(16384 - 4)} + a`;
    expect(message(atLimit)).toBe(`compilation failed: ERROR: <input>:1:16384: undeclared reference to 'a' (in container '')\n | ${atLimit}\n | ${'.'.repeat(16383)}^`);
    expect(message(`${pad(16385 - 4)} + a`)).toBe("compilation failed: ERROR: <input>:1:16385: undeclared reference to 'a' (in container '')");
    // Bytes, not characters: 5,462 three-byte characters are 16,386 bytes.
    const wide = `'${'€'.repeat(5462)}' + a`;
    expect(message(wide)).toBe("compilation failed: ERROR: <input>:1:5468: undeclared reference to 'a' (in container '')");
    // Per line: the short line of a two-line expression keeps its snippet.
    expect(message(`${pad(20000)} + a +\nb`)).toBe(
      "compilation failed: ERROR: <input>:1:20004: undeclared reference to 'a' (in container '')\n" +
        "ERROR: <input>:2:1: undeclared reference to 'b' (in container '')\n | b\n | ^",
    );
  });

  it('keeps the message of 100 errors on a long line small', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `a${i}`);
    expect(message(`[${names.join(', ')}]`).length).toBeLessThan(100 * 80);
  });
});
