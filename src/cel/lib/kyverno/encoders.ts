import { base64, base64Decode } from '../../../go/index.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { celError } from '../errors.js';

/**
 * cel-go's ext.Encoders, which Kyverno's base environment registers (kyverno pkg/cel/compiler/env.go):
 * `base64.encode(bytes)` in standard padded form; `base64.decode(string)` reads the padded form and,
 * when that finds corrupt input, the unpadded one, reporting the latter's Go error.
 */
function decode(text: string): Uint8Array {
  try {
    return base64Decode(text, true);
  } catch {
    try {
      return base64Decode(text, false);
    } catch (e) {
      throw celError((e as Error).message);
    }
  }
}

export const encodersLibrary: CelLibrary = {
  name: 'cel.lib.ext.encoders',
  register(r: LibraryRegistrar) {
    r.registerFunction('base64.decode(string): bytes', decode);
    r.registerFunction('base64.encode(bytes): string', base64);
  },
};
