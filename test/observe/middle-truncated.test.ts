/** middleTruncatedForLog: a long message keeps its start and its end (where a field error says why). */
import { describe, expect, it } from 'vitest';
import { middleTruncatedForLog } from '../../src/observe/index.js';

describe('middleTruncatedForLog', () => {
  it('keeps a text up to the bound whole', () => {
    expect(middleTruncatedForLog('abcdef', 6)).toBe('abcdef');
  });

  it('keeps the first and last halves of the bound around the full length', () => {
    expect(middleTruncatedForLog('0123456789', 4)).toBe('01…[truncated: 10 characters]…89');
  });

  it('never cuts a surrogate pair in two', () => {
    const text = `a😀${'x'.repeat(10)}😀b`; // 'a', pair, 10 x, pair, 'b': 16 code units
    const cut = middleTruncatedForLog(text, 4);
    expect(cut).toBe('a…[truncated: 16 characters]…b');
    expect(cut).not.toMatch(/[\ud800-\udfff]/);
  });
});
