import { randomFromPattern, RegenError } from '../../../go/index.js';
import { activeGuard } from '../../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { actualSize, traversal } from '../cost.js';
import { celError } from '../errors.js';

/**
 * Kyverno's random library (kyverno/sdk `extensions/cel/libs/random`): `random(string) -> string`, a
 * random string the pattern (Go regexp syntax) matches, made by goregen's regen.Generate (src/go/regen.ts,
 * shared with JMESPath's `random`); `random() -> string` is `random("[0-9a-z]{8}")`; both also as
 * `random.random`. An invalid pattern is an error with Go's parse message; an empty pattern gives ""
 * (only JMESPath's `random` refuses it). The result is bounded by the review's size bound as it is built.
 * Not pure: each evaluation draws anew.
 */

const DEFAULT_PATTERN = '[0-9a-z]{8}';

function random(pattern: string): string {
  try {
    return randomFromPattern(pattern, Math.random, activeGuard());
  } catch (e) {
    if (e instanceof RegenError) throw celError(e.message);
    throw e;
  }
}

export const randomLibrary: CelLibrary = {
  name: 'kyverno.random',
  register(r: LibraryRegistrar) {
    for (const prefix of ['', 'random.']) {
      r.registerFunction(`${prefix}random(string): string`, random);
      r.registerFunction(`${prefix}random(): string`, () => random(DEFAULT_PATTERN));
    }
  },
  callCost(fn, args, result) {
    // A pass over the pattern and one over what was written.
    if (fn !== 'random' && fn !== 'random.random') return undefined;
    return 1 + (args.length > 0 ? traversal(args[0]) : 0) + (typeof result === 'string' ? Math.ceil(actualSize(result) * 0.1) : 0);
  },
};
