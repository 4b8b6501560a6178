import { describe, expect, it } from 'vitest';
import { CelOptional, CelUint } from '../../../src/cel/index.js';
import { cel, celError, celMixed } from './env.js';

describe('Kubernetes lists', () => {
  it('sum, min, max over each element type', () => {
    expect(cel('[1, 2, 3].sum()')).toBe(6n);
    expect(cel('[1.5, 2.5].sum()')).toBe(4);
    expect(cel('[1u, 2u].sum()')).toEqual(new CelUint(3n));
    expect(cel('[duration("1m"), duration("1s")].sum() == duration("61s")')).toBe(true);
    expect(cel("['b', 'a', 'c'].min()")).toBe('a');
    expect(cel('[timestamp("2020-01-01T00:00:00Z"), timestamp("2019-01-01T00:00:00Z")].max() == timestamp("2020-01-01T00:00:00Z")')).toBe(true);
    expect(cel('[b"b", b"a"].min() == b"a"')).toBe(true);
  });

  it('sum of a dyn list takes the element type from the elements', () => {
    expect(cel('l.sum()', { l: [1.5, 2] })).toBe(3.5);
    expect(cel('l.sum()', { l: [] })).toBe(0n);
    expect(celError('l.sum()', { l: [1n, 2.5] })).toBe('no such overload');
    // The first element picks the overload (cel-go's runtime dispatch); none takes a list of strings.
    expect(celError('l.sum()', { l: ['a', 'b'] })).toBe('no such overload: sum(list)');
    expect(celError('l.min()', { l: [null, 1n] })).toBe('no such overload: min(list)');
  });

  it('sum overflows with an error, not a wrapped value', () => {
    expect(celError('[9223372036854775807, 1].sum()')).toBe('integer overflow');
    expect(celError('[18446744073709551615u, 1u].sum()')).toBe('unsigned integer overflow');
  });

  it('min/max of an empty list is an error', () => {
    expect(celError('l.min()', { l: [] })).toBe('min called on empty list');
    expect(celError('l.max()', { l: [] })).toBe('max called on empty list');
  });

  it('isSorted compares numbers across int and double, strings by code point', () => {
    expect(cel('l.isSorted()', { l: [1n, 1.5, 2n] })).toBe(true);
    expect(cel("['\\uffff', '😀'].isSorted()")).toBe(true);
    expect(cel('[3, 1].isSorted()')).toBe(false);
    expect(celError('[[1]].isSorted()')).toMatch(/found no matching overload/);
  });

  // lists.go isSorted/cmp act on Compare's -1 or 1 only: the error cel-go's Compare returns for a pair it
  // cannot order (int and string, bool and int) is skipped; an element that orders with nothing (null,
  // a list, a quantity: not a traits.Comparer) has no overload.
  it('isSorted, min and max of a mixed dyn list skip the pairs that do not order', () => {
    expect(cel('l.isSorted()', { l: [1n, 'a'] })).toBe(true);
    expect(cel('l.isSorted()', { l: [2n, 'a', 1n] })).toBe(true);
    expect(cel('l.isSorted()', { l: [2n, 1n, null] })).toBe(false);
    expect(cel('l.max()', { l: [1n, 'a', 3n] })).toBe(3n);
    expect(cel('l.min()', { l: ['b', 1n, 'a'] })).toBe('a');
    expect(cel('l.min()', { l: [true, 1n] })).toBe(true);
    expect(celError('l.max()', { l: [1n, null] })).toBe('no such overload');
    expect(celError('l.isSorted()', { l: [1n, 2n, null] })).toBe('no such overload');
  });

  it('quantities and semvers are not ordered by isSorted, min, max or sort', () => {
    expect(celError("dyn([quantity('1'), quantity('2')]).max()")).toBe('no such overload: max(list)');
    expect(celError("dyn([semver('1.0.0'), semver('2.0.0')]).isSorted()")).toBe('no such overload: isSorted(list)');
    expect(celError("dyn([quantity('2'), quantity('1')]).sort()")).toBe('list elements must be comparable');
  });

  it('indexOf, lastIndexOf and includes use CEL equality', () => {
    expect(cel('[1, 2, 1].lastIndexOf(1)')).toBe(2n);
    expect(celMixed('[1.0, 2].indexOf(1)')).toBe(0n);
    expect(cel("[{'a': [1]}, {'a': [2]}].indexOf({'a': [2]})")).toBe(1n);
    expect(cel('[1, 2].includes(2)')).toBe(true);
    expect(cel('[1, 2].includes(3)')).toBe(false);
    expect(cel("'abc'.indexOf('c')")).toBe(2n); // the string overload next to the list one
  });

  it('includes is declared on dyn: a list holds an equal element, anything else equals the argument', () => {
    // lists.go: `<dyn>.includes(<dyn>) <bool>`, with its documented examples.
    expect(cel("'model-a'.includes('model-a')")).toBe(true);
    expect(cel("'model-a'.includes('model-b')")).toBe(false);
    expect(cel("[1, 2].includes('x')")).toBe(false);
    expect(celMixed('[1.0, 2].includes(1)')).toBe(true);
    expect(cel("{'a': 1}.includes({'a': 1})")).toBe(true);
  });
});

describe('lists extension', () => {
  it('slice, flatten, reverse, distinct', () => {
    expect(cel('[1, 2, 3, 4].slice(1, 3)')).toEqual([2n, 3n]);
    expect(celError('[1, 2].slice(1, 3)')).toBe('cannot slice(1, 3), list is length 2');
    expect(celError('[1, 2].slice(2, 1)')).toBe('cannot slice(2, 1), start index must be less than or equal to end index');
    expect(celError('[1, 2].slice(-1, 1)')).toBe('cannot slice(-1, 1), negative indexes not supported');
    expect(cel('[[1], [2, 3], []].flatten()')).toEqual([1n, 2n, 3n]);
    expect(celMixed('[1, [2, [3, [4]]]].flatten(2)')).toEqual([1n, 2n, 3n, [4n]]);
    expect(celError('l.flatten(-1)', { l: [[1n]] })).toBe('level must be non-negative');
    expect(cel('[1, 2, 3].reverse()')).toEqual([3n, 2n, 1n]);
    expect(celMixed("[1, 'b', 1.0, 2u, 'b'].distinct()")).toEqual([1n, 'b', new CelUint(2n)]);
  });

  it('sort and sortBy', () => {
    expect(cel("['b', 'c', 'a'].sort()")).toEqual(['a', 'b', 'c']);
    expect(celError('l.sort()', { l: [1n, 'b'] })).toBe('list elements must have the same type');
    expect(celError('l.sort()', { l: [[1n], [2n]] })).toBe('list elements must be comparable');
    expect(celError('l.sort()', { l: [new CelUint(1n), 1n] })).toBe('list elements must have the same type');
    expect(cel('l.sortBy(e, e.s).map(e, e.n)', { l: [{ n: 'x', s: 2n }, { n: 'y', s: 1n }] })).toEqual(['y', 'x']);
    expect(cel('[3, 1, 2].sortBy(e, -e)')).toEqual([3n, 2n, 1n]);
    // equal keys keep their order up to 12 elements (Go's sort.Slice sorts those by insertion)
    expect(cel("['b1', 'a1', 'b2', 'a2'].sortBy(e, e.substring(0, 1))")).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(celError('[1, 2].sortBy(e, [e])')).toMatch(/found no matching overload/);
    expect(celError('l.sortBy(e, e)', { l: [1n, 'a'] })).toBe('list elements must have the same type');
  });

  it('sorts as Go sort.Slice does, as cel-go: unstable past 12 elements, a NaN only not-less', () => {
    // Traced through Go's pdqsort (src/sort/zsortfunc.go): one partition around the middle element.
    expect(cel('lists.range(16).map(i, i + 1).sortBy(x, x % 2)')).toEqual([10, 2, 16, 4, 14, 6, 12, 8, 9, 1, 11, 7, 13, 5, 15, 3].map(BigInt));
    // Insertion sort: each element moves left while it is less than its neighbour; NaN never is, nor is anything less than it.
    expect(cel('[3.0, 1.0, 0.0/0.0, 2.0, 0.5].sort()')).toEqual([1, 3, NaN, 0.5, 2]);
  });

  it('sorts any ordering completely (Go sort.Slice on every size and shape)', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (const size of [0, 1, 2, 11, 12, 13, 40, 49, 50, 51, 64, 200, 1000]) {
      for (const shape of ['random', 'few', 'sorted', 'reversed', 'organ']) {
        const l = Array.from({ length: size }, (_, i) =>
          BigInt(shape === 'random' ? rnd(1_000_000) : shape === 'few' ? rnd(3) : shape === 'sorted' ? i : shape === 'reversed' ? size - i : Math.min(i, size - i)),
        );
        const sorted = [...l].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(cel('l.sort()', { l }), `${shape} ${size}`).toEqual(sorted);
        // sortBy moves the elements with their keys: each element stays with its own key.
        const pairs = cel('p.sortBy(x, x[1])', { p: l.map((v, i) => [BigInt(i), v]) }) as bigint[][];
        expect(pairs.map((x) => x[1]), `${shape} ${size} sortBy`).toEqual(sorted);
        expect(pairs.map((x) => l[Number(x[0])]), `${shape} ${size} sortBy pairs`).toEqual(sorted);
      }
    }
  });

  it('first, last and lists.range', () => {
    expect(cel('[1, 2].first()')).toEqual(CelOptional.of(1n));
    expect(cel('[1, 2].last().value()')).toBe(2n);
    expect(cel('l.first().hasValue()', { l: [] })).toBe(false);
    expect(cel('lists.range(4)')).toEqual([0n, 1n, 2n, 3n]);
    expect(cel('lists.range(-2)')).toEqual([]);
    expect(celError('lists.range(1000000000)')).toMatch(/exceeds the cost limit/);
  });
});

describe('sets extension', () => {
  it('contains, equivalent, intersects with CEL equality', () => {
    expect(cel('sets.contains([1, 2, 3], [3, 1])')).toBe(true);
    // 2.0 and 2 are the same element
    expect(cel('sets.contains(a, b)', { a: [1n, 2.0], b: [2n, 1.0] })).toBe(true);
    expect(cel('sets.intersects(a, b)', { a: [1n, 2.5], b: [3n, 2.5] })).toBe(true);
    expect(cel('sets.contains([1], [])')).toBe(true);
    expect(cel('sets.equivalent([1, 1, 2], [2, 1])')).toBe(true);
    expect(cel('sets.equivalent([1, 2], [1])')).toBe(false);
    expect(cel('sets.intersects([[1], [2]], [[2], [3]])')).toBe(true);
    expect(cel('sets.intersects([1], [2])')).toBe(false);
  });
});
