/**
 * BigInt watched while each test of a file runs: how often it is called and the longest text it is given.
 * V8 reads a decimal BigInt in superlinear time, so the tests of the linear readers count what reaches
 * it instead of timing them.
 */
import { afterEach, beforeEach } from 'vitest';

export interface BigIntUse {
  calls: number;
  /** The longest string given to BigInt. */
  longestText: number;
}

/** Installs the watch around every test of the calling file; the figures are reset before each. */
export function watchBigInt(): BigIntUse {
  const use: BigIntUse = { calls: 0, longestText: 0 };
  const original = globalThis.BigInt;
  beforeEach(() => {
    use.calls = 0;
    use.longestText = 0;
    const watched = function BigInt(value: unknown): bigint {
      use.calls++;
      if (typeof value === 'string') use.longestText = Math.max(use.longestText, value.length);
      return original(value as string);
    };
    Object.setPrototypeOf(watched, original);
    Object.defineProperties(watched, { asIntN: { value: original.asIntN }, asUintN: { value: original.asUintN }, prototype: { value: original.prototype } });
    globalThis.BigInt = watched as BigIntConstructor;
  });
  afterEach(() => {
    globalThis.BigInt = original;
  });
  return use;
}
