import { describe, expect, it } from 'vitest';
import { diffJson, formatDifferences } from '../../src/cli/diff.js';

describe('diffJson', () => {
  it('finds nothing between equal documents whatever the key order', () => {
    expect(diffJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual([]);
  });

  it('is exact: empty is not missing, strings are not numbers, list order matters', () => {
    expect(diffJson({ a: {} }, {})).toEqual([{ path: '/a', expected: {} }]);
    expect(diffJson({ a: 1 }, { a: '1' })).toEqual([{ path: '/a', expected: 1, actual: '1' }]);
    expect(diffJson([1, 2], [2, 1])).toEqual([
      { path: '/0', expected: 1, actual: 2 },
      { path: '/1', expected: 2, actual: 1 },
    ]);
    expect(diffJson({ a: null }, { a: {} })).toEqual([{ path: '/a', expected: null, actual: {} }]);
  });

  it('reports surplus and missing list items and escapes keys as JSON Pointer', () => {
    expect(diffJson({ l: [1] }, { l: [1, 2], 'a/b~c': true })).toEqual([
      { path: '/l/1', actual: 2 },
      { path: '/a~1b~0c', actual: true },
    ]);
  });

  it('formats differences for people', () => {
    const text = formatDifferences(diffJson({ a: 1, b: 'x' }, { a: 2, c: [] }));
    expect(text).toBe('  /a: expected 1, got 2\n  /b: missing, expected "x"\n  /c: unexpected []');
    expect(formatDifferences(diffJson(1, 2))).toBe('  (whole document): expected 1, got 2');
  });
});
