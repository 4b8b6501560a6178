import { describe, expect, it } from 'vitest';
import { indentJsonText } from '../../src/json/index.js';

describe('indentJsonText', () => {
  it('lays compact JSON out as JSON.stringify(value, null, indent) does', () => {
    const values = [
      {},
      [],
      { a: [], b: {}, c: [{}], d: 'x:{[,]}"\\', e: [1, -2.5e-7, true, null, 'a\n"b"'], '__k,:"': { deep: [[[]]] } },
      [1, [2, [3, {}]], { '': '' }],
      'text',
      42,
      null,
    ];
    for (const v of values) {
      expect(indentJsonText(JSON.stringify(v), 2)).toBe(JSON.stringify(v, null, 2));
      expect(indentJsonText(JSON.stringify(v), '\t')).toBe(JSON.stringify(v, null, '\t'));
    }
  });

  it('copies number literals as they are', () => {
    expect(indentJsonText('{"n":9223372036854775807}', 2)).toBe('{\n  "n": 9223372036854775807\n}');
  });
});
