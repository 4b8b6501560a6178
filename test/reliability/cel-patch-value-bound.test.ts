/**
 * The JSON patch of a MutatingAdmissionPolicy is converted from CEL under the review's value bound, which
 * stops the conversion once what it wrote passes the bound. Numbers, booleans and nulls were counted in
 * the size measured afterwards but not spent from that allowance, so `lists.range(2000).map(i,
 * JSONPatch{op: "test", path: "/spec/x", value: object.spec.x})` over a review's list of 500,000 integers
 * (1 MB) was converted whole, 10^9 numbers (1.5 GB of heap, 10 s: a Workers isolate or a Lambda dies of
 * it), before its measured size refused it. Counted, not timed: the list is a proxy that counts its
 * element reads.
 */
import { describe, expect, it } from 'vitest';
import { StructValue, toJsonPatchOperations, type CelValue } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';

/** `n` integers (CEL ints), and how many of them were read. */
function countedIntegers(n: number): { list: CelValue[]; reads: () => number } {
  let reads = 0;
  const list = new Proxy(Array.from({ length: n }, (_, i) => BigInt(i % 10)), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, reads: () => reads };
}

const testOp = (value: CelValue) => new StructValue('JSONPatch', new Map<string, CelValue>([['op', 'test'], ['path', '/spec/x'], ['value', value]]));

const MAX_VALUE_BYTES = 1 << 20;
const guard = () => new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: MAX_VALUE_BYTES });

describe('a JSON patch whose operations carry many numbers', () => {
  it('stops converting once what it wrote passes the bound (each number counts 8 bytes), with a size error', () => {
    const { list, reads } = countedIntegers(100_000);
    const ops = Array.from({ length: 200 }, () => testOp(list));
    let error: unknown;
    try {
      toJsonPatchOperations(ops, guard());
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ReviewAborted);
    expect((error as ReviewAborted).reason).toBe('size');
    expect((error as ReviewAborted).message).toMatch(/over the limit of 1048576 bytes per value/);
    // About MAX_VALUE_BYTES / 8 numbers, not the 20,000,000 of all 200 operations.
    expect(reads()).toBeLessThanOrEqual(MAX_VALUE_BYTES / 8 + 1);
  });

  it('converts a patch within the bound whole, numbers as they are', () => {
    const { list, reads } = countedIntegers(1_000);
    const ops = toJsonPatchOperations(Array.from({ length: 10 }, () => testOp(list)), guard());
    expect(ops).toHaveLength(10);
    expect(ops[9]).toEqual({ op: 'test', path: '/spec/x', value: Array.from({ length: 1_000 }, (_, i) => i % 10) });
    expect(reads()).toBe(10_000);
  });
});
