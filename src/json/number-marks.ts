/**
 * The literal forms of a container's numbers that copies must keep (float-literals.ts: `1.0`;
 * exact-integers.ts: an int64 past ±2^53), for code that copies containers without caring which.
 */
import { exactInteger, exactIntegersMarked, hasExactIntegers, markExactInteger, unmarkExactInteger } from './exact-integers.js';
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

/**
 * The literal form of one number, to carry where the number is placed: `'float'` (written `1.0`), its
 * exact value (an int64 past ±2^53), or none.
 */
export type NumberMark = 'float' | bigint | undefined;

/** The literal form of the number at `container[key]` (none for a value that is no number). */
export function numberMarkOf(container: object, key: string | number): NumberMark {
  if (typeof (container as Record<string | number, unknown>)[key] !== 'number') return undefined;
  if (isFloatLiteral(container, key)) return 'float';
  return exactInteger(container, key);
}

/**
 * Gives the number just set at `container[key]` the literal form `mark`; without one, a stale exact mark
 * of the slot is forgotten (an exact mark outlives its value when the new number rounds to the same double).
 * Float marks are the caller's to drop (the appliers copy a container without them).
 */
export function setNumberMark(container: object, key: string | number, mark: NumberMark): void {
  if (mark === 'float') markFloatLiteral(container, key);
  else if (mark !== undefined) markExactInteger(container, key, mark);
  else if (exactIntegersMarked() && hasExactIntegers(container)) unmarkExactInteger(container, key);
}
