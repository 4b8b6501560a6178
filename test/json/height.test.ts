import { describe, expect, it } from 'vitest';
import { heightUpTo } from '../../src/json/index.js';

const nested = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

describe('heightUpTo', () => {
  it('counts containers along the deepest path: a leaf 0, [] and {} 1', () => {
    expect(heightUpTo('x', 10)).toBe(0);
    expect(heightUpTo(null, 10)).toBe(0);
    expect(heightUpTo([], 10)).toBe(1);
    expect(heightUpTo({ a: 1, b: [{ c: [] }] }, 10)).toBe(4);
    expect(heightUpTo(nested(1000), 1000)).toBe(1000);
  });

  it('stops past the limit, on any depth, without overflowing the stack', () => {
    expect(heightUpTo(nested(1001), 1000)).toBeGreaterThan(1000);
    expect(heightUpTo(nested(500_000), 1000)).toBeGreaterThan(1000);
    expect(heightUpTo({ a: [[[]]] }, 0)).toBeGreaterThan(0);
  });

  it('remembers what it walked whole, and reads it back wherever the subtree is moved', () => {
    const memo = new Map<object, number>();
    const inner = nested(600) as object;
    expect(heightUpTo({ a: inner }, 1000, memo)).toBe(601);
    expect(memo.get(inner)).toBe(600);
    // The same subtree 500 levels down: found in the memo, and over the limit.
    expect(heightUpTo(wrap(inner, 500), 1000, memo)).toBeGreaterThan(1000);
    // A walk cut short at the limit remembers nothing above the cut.
    const tooDeep = wrap(inner, 500) as object;
    heightUpTo(tooDeep, 1000, memo);
    expect(memo.get(tooDeep)).toBeUndefined();
  });

  it('skips inherited members and counts own __proto__ data', () => {
    const object = JSON.parse('{"__proto__": {"a": {}}}') as object;
    expect(heightUpTo(object, 10)).toBe(3);
  });
});

function wrap(value: unknown, levels: number): unknown {
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
