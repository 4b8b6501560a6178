import { describe, expect, it } from 'vitest';
import { heightUpTo, nestsDeeperThan } from '../../src/json/index.js';

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

  it('nestsDeeperThan walks only what changed from a version known to fit', () => {
    const inner = nested(600) as Record<string, unknown>;
    const before = { a: inner, b: { c: [] } };
    // Unchanged, or changed beside the deep subtree: fits.
    expect(nestsDeeperThan(before, before, 1000)).toBe(false);
    expect(nestsDeeperThan({ ...before, b: { c: [[]] } }, before, 1000)).toBe(false);
    // The same subtree 500 levels further down: it moved, so it is walked, and no longer fits.
    expect(nestsDeeperThan({ ...before, b: wrap(inner, 500) }, before, 1000)).toBe(true);
    expect(nestsDeeperThan({ a: wrap(inner, 399) }, before, 1000)).toBe(false);
    expect(nestsDeeperThan({ a: wrap(inner, 400) }, before, 1000)).toBe(true);
    // Without a version to compare with, all of it is walked.
    expect(nestsDeeperThan(nested(1000), undefined, 1000)).toBe(false);
    expect(nestsDeeperThan(nested(1001), undefined, 1000)).toBe(true);
    expect(nestsDeeperThan(nested(500_000), undefined, 1000)).toBe(true);
    // A subtree at the same path is trusted as it was: what the caller vouches for.
    const tooDeep = { a: nested(2000) };
    expect(nestsDeeperThan({ ...tooDeep, b: 1 }, tooDeep, 1000)).toBe(false);
    // Array items are compared by index.
    const list = [inner, { x: 1 }];
    expect(nestsDeeperThan([list[0], wrap(inner, 500)], list, 1000)).toBe(true);
    expect(nestsDeeperThan([{ y: 2 }, ...list], list, 1000)).toBe(false);
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
