/** Helpers shared by the property and copy-on-write tests of the JSON modules (json, jsonpatch, schema). */
import { expect } from 'vitest';
import { JsonParseError, parseJson } from '../../src/json/index.js';

/** The message parseJson refuses `text` with (a JsonParseError); fails the test when it parses. */
export function refusal(text: string): string {
  try {
    parseJson(text);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonParseError);
    return (err as Error).message;
  }
  throw new Error(`parsed ${text.slice(0, 40)}`);
}

/**
 * A small seeded generator (mulberry32) for the property tests, so every run checks the same cases and a
 * failure reproduces from its seed.
 */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    /** In [0, 1). */
    next,
    /** An integer in [0, n). */
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}

export type Rng = ReturnType<typeof rng>;

/** Freezes a JSON value and everything in it, so a test fails when code under test writes into its input. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as any)[k]);
    Object.freeze(v);
  }
  return v;
}
