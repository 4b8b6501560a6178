import { gunzip, GzipError, GzipOutputTooLarge, gzipStored } from '../../../go/index.js';
import { activeGuard, checkBuiltSize } from '../../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { actualSize, traversal } from '../cost.js';
import { celError } from '../errors.js';
import { goStringArgument } from './go-string.js';

/**
 * Kyverno's gzip library (kyverno/sdk `extensions/cel/libs/gzip`): `gzip.decompress(bytes) -> string`,
 * Go's gzip reader with its error texts (src/go/gzip.ts), the bytes read as a string; and
 * `gzip.compress(dyn) -> bytes` of a string's UTF-8 bytes. The decompressed text is bounded by the
 * review's size bound before it is built. What compress writes is a valid gzip stream that
 * decompresses to the same text everywhere, but not Go's compressed bytes (stored blocks, so larger).
 */

// ignoreBOM: Go's string(bytes) keeps a leading U+FEFF, which TextDecoder would drop.
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

function decompress(data: Uint8Array): string {
  const bound = activeGuard()?.maxValueBytes ?? Infinity;
  try {
    return utf8.decode(gunzip(data, bound));
  } catch (e) {
    if (e instanceof GzipOutputTooLarge) {
      checkBuiltSize(e.size + 1, 'the result of gzip.decompress');
      throw celError(e.message);
    }
    if (e instanceof GzipError) throw celError(e.message);
    throw e;
  }
}

/** The argument is dyn, converted to a Go string when called. */
function compress(value: unknown): Uint8Array {
  const bytes = encoder.encode(goStringArgument(value));
  checkBuiltSize(bytes.length + 18, 'the result of gzip.compress');
  return gzipStored(bytes);
}

export const gzipLibrary: CelLibrary = {
  name: 'kyverno.gzip',
  register(r: LibraryRegistrar) {
    r.registerFunction('gzip.decompress(bytes): string', decompress);
    r.registerFunction('gzip.compress(dyn): bytes', compress);
  },
  callCost(fn, args, result) {
    // One pass over the bytes read and the bytes written.
    if (fn === 'gzip.decompress' || fn === 'gzip.compress') return 1 + traversal(args[0]) + (result === null ? 0 : Math.ceil(actualSize(result) * 0.1));
    return undefined;
  },
};
