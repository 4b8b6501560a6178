import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversal } from '../cost.js';
import { md5Hex, sha1Hex, sha256Hex } from './digests.js';

/**
 * Kyverno's hash library (kyverno/sdk `extensions/cel/libs/hash`): hex digests of a string's UTF-8
 * bytes, as `sha1`/`sha256`/`md5` and their `hash.`-prefixed names.
 */
export const hashLibrary: CelLibrary = {
  name: 'kyverno.hash',
  register(r: LibraryRegistrar) {
    for (const prefix of ['', 'hash.']) {
      r.registerFunction(`${prefix}sha1(string): string`, sha1Hex);
      r.registerFunction(`${prefix}sha256(string): string`, sha256Hex);
      r.registerFunction(`${prefix}md5(string): string`, md5Hex);
    }
  },
  callCost(fn, args) {
    return /(^|\.)(sha1|sha256|md5)$/.test(fn) ? 1 + traversal(args[0]) : undefined;
  },
};
