/**
 * Go's sort.Slice (pattern-defeating quicksort, Go 1.19+; the algorithm of src/sort/zsortfunc.go), for
 * results that must order elements as cel-go's `sort()` / `sortBy()` do. It is not stable: elements
 * whose keys tie (sortBy over more than 12 elements) end up where Go's partitioning puts them, and a
 * comparison that fails (a NaN) is simply "not less", which moves elements only as Go's steps do.
 */

interface LessSwap {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

const enum Hint {
  Unknown,
  Increasing,
  Decreasing,
}

/** Sorts the `length` elements `less` and `swap` address by index, as Go's sort.Slice does. */
export function goSortSlice(length: number, less: (i: number, j: number) => boolean, swap: (i: number, j: number) => void): void {
  pdqsort({ less, swap }, 0, length, bitsLen(length));
}

/** Go's bits.Len for a non-negative array length. */
function bitsLen(x: number): number {
  return x === 0 ? 0 : 32 - Math.clz32(x);
}

function insertionSort(d: LessSwap, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && d.less(j, j - 1); j--) d.swap(j, j - 1);
  }
}

function siftDown(d: LessSwap, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && d.less(first + child, first + child + 1)) child++;
    if (!d.less(first + root, first + child)) return;
    d.swap(first + root, first + child);
    root = child;
  }
}

function heapSort(d: LessSwap, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) siftDown(d, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    d.swap(first, first + i);
    siftDown(d, 0, i, first);
  }
}

function pdqsort(d: LessSwap, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true; // whether the last partitioning was reasonably balanced
  let wasPartitioned = true; // whether the slice was already partitioned
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(d, a, b);
      return;
    }
    // Too many bad pivots: heapsort.
    if (limit === 0) {
      heapSort(d, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(d, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(d, a, b);
    if (hint === Hint.Decreasing) {
      reverseRange(d, a, b);
      pivot = b - 1 - (pivot - a);
      hint = Hint.Increasing;
    }
    // Likely already sorted.
    if (wasBalanced && wasPartitioned && hint === Hint.Increasing && partialInsertionSort(d, a, b)) return;
    // Many duplicates: put the elements equal to the pivot first (`a - 1` is the previous pivot).
    if (a > 0 && !d.less(a - 1, pivot)) {
      a = partitionEqual(d, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(d, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.trunc(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(d, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(d, mid + 1, b, limit);
      b = mid;
    }
  }
}

/** One quicksort partition around data[pivot]; the pivot's new index, and whether nothing moved. */
function partition(d: LessSwap, a: number, b: number, pivot: number): [number, boolean] {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && d.less(i, a)) i++;
  while (i <= j && !d.less(j, a)) j--;
  if (i > j) {
    d.swap(j, a);
    return [j, true];
  }
  d.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && d.less(i, a)) i++;
    while (i <= j && !d.less(j, a)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  d.swap(j, a);
  return [j, false];
}

/** Elements equal to data[pivot] first, then the greater ones (none is smaller); where the latter start. */
function partitionEqual(d: LessSwap, a: number, b: number, pivot: number): number {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !d.less(a, i)) i++;
    while (i <= j && d.less(a, j)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  return i;
}

/** Shifts a few out-of-order pairs into place; true when the range ends up sorted. */
function partialInsertionSort(d: LessSwap, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !d.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    d.swap(i, i - 1);
    // The smaller one to the left (down to index 1, as Go's loop runs), the greater one to the right.
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
  }
  return false;
}

/** Swaps three middle elements with pseudo-random others (Go's xorshift seeded with the length). */
function breakPatterns(d: LessSwap, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  let random = BigInt(length);
  const mask = BigInt((2 ** bitsLen(length)) - 1);
  const next = (): bigint => {
    random = BigInt.asUintN(64, random ^ (random << 13n));
    random ^= random >> 7n;
    random = BigInt.asUintN(64, random ^ (random << 17n));
    return random;
  };
  const middle = a + Math.trunc(length / 4) * 2;
  for (let idx = middle - 1; idx <= middle + 1; idx++) {
    let other = Number(next() & mask);
    if (other >= length) other -= length;
    d.swap(idx, a + other);
  }
}

/** The pivot index (median of 3, or Tukey's ninther from 50 elements) and what the samples suggest. */
function choosePivot(d: LessSwap, a: number, b: number): [number, Hint] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { n: 0 };
  const quarter = Math.trunc(l / 4);
  let i = a + quarter;
  let j = a + quarter * 2;
  let k = a + quarter * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(d, i - 1, i, i + 1, swaps);
      j = median(d, j - 1, j, j + 1, swaps);
      k = median(d, k - 1, k, k + 1, swaps);
    }
    j = median(d, i, j, k, swaps);
  }
  return [j, swaps.n === 0 ? Hint.Increasing : swaps.n === maxSwaps ? Hint.Decreasing : Hint.Unknown];
}

/** The index of the median of data[a], data[b], data[c] (Go's median_func, counting swaps). */
function median(d: LessSwap, a: number, b: number, c: number, swaps: { n: number }): number {
  [a, b] = order2(d, a, b, swaps);
  [b, c] = order2(d, b, c, swaps);
  [a, b] = order2(d, a, b, swaps);
  return b;
}

function order2(d: LessSwap, a: number, b: number, swaps: { n: number }): [number, number] {
  if (d.less(b, a)) {
    swaps.n++;
    return [b, a];
  }
  return [a, b];
}

function reverseRange(d: LessSwap, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) d.swap(i, j);
}
