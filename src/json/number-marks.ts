/**
 * The literal forms of a container's numbers that copies must keep (float-literals.ts: `1.0`;
 * exact-integers.ts: an int64 past ±2^53), for code that copies containers without caring which.
 */
import { exactInteger, hasExactIntegers, markExactInteger } from './exact-integers.js';
import { hasFloatLiterals, isFloatLiteral, markFloatLiteral } from './float-literals.js';

/** True when some number of `container` carries a literal form (one lookup per kind, no walk). */
export function hasNumberMarks(container: object): boolean {
  return hasFloatLiterals(container) || hasExactIntegers(container);
}

/**
 * `copy`, a shallow copy of `source` (made at the caller's own spread site: V8 keeps a spread fast while
 * its site sees few object shapes), with the literal forms of `source`'s numbers.
 */
export function withNumberMarksOf<T extends object>(source: object, copy: T): T {
  if (hasNumberMarks(source)) {
    for (const key in copy) if (typeof copy[key] === 'number') copyNumberMark(source, key, copy, key);
  }
  return copy;
}

/** Carries the literal form of the number at `from[fromKey]` to its copy at `to[toKey]`. */
export function copyNumberMark(from: object, fromKey: string | number, to: object, toKey: string | number): void {
  if (isFloatLiteral(from, fromKey)) markFloatLiteral(to, toKey);
  else {
    const exact = exactInteger(from, fromKey);
    if (exact !== undefined) markExactInteger(to, toKey, exact);
  }
}
