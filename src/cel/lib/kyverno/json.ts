import { JsonParseError, parseJson } from '../../../json/index.js';
import { checkBuiltSize } from '../../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { actualSize, traversal } from '../cost.js';
import { celError } from '../errors.js';
import { documentToCel, marshalCel } from './documents.js';

/**
 * Kyverno's json library (kyverno/sdk `extensions/cel/libs/json`): `json.unmarshal(string) -> dyn` and
 * `json.marshal(dyn) -> string`, Go's encoding/json on both sides (numbers decode as doubles).
 */

function unmarshal(text: string): unknown {
  checkBuiltSize(text.length, 'the argument of json.unmarshal');
  try {
    return documentToCel(parseJson(text));
  } catch (e) {
    if (e instanceof JsonParseError) throw celError(e.message);
    throw e;
  }
}

export const jsonLibrary: CelLibrary = {
  name: 'kyverno.json',
  register(r: LibraryRegistrar) {
    r.registerFunction('json.unmarshal(string): dyn', unmarshal);
    r.registerFunction('json.marshal(dyn): string', (v: unknown) => marshalCel(v));
  },
  callCost(fn, args, result) {
    // One pass over the text read or written.
    if (fn === 'json.unmarshal') return 1 + traversal(args[0]);
    if (fn === 'json.marshal') return 1 + (typeof result === 'string' ? Math.ceil(actualSize(result) * 0.1) : 0);
    return undefined;
  },
};
