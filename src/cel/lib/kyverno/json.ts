import { goJsonSyntaxError } from '../../../go/index.js';
import { getOwn, isJsonObject, JsonParseError, parseJson, setOwn, type JsonObject, type JsonValue } from '../../../json/index.js';
import { checkBuiltSize } from '../../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { actualSize, traversal } from '../cost.js';
import { celError } from '../errors.js';
import { documentToCel, marshalCel } from './documents.js';
import { goStringArgument } from './go-string.js';

/**
 * Kyverno's json library (kyverno/sdk `extensions/cel/libs/json`): `json.unmarshal(dyn) -> dyn` (a string
 * when called) and `json.marshal(dyn) -> string`, Go's encoding/json on both sides: numbers decode as
 * doubles, a text that is not JSON fails with Go's syntax error, a timestamp marshals as RFC 3339 text and
 * a duration as nanoseconds (Go's time.Time and time.Duration).
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** A text that may decode to a lone surrogate: a `\uD800`–`\uDFFF` escape, or one in the text itself. */
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]|[\ud800-\udfff]/;

/**
 * Go's encoding/json decodes a surrogate escape that does not pair with the next one (and invalid UTF-8)
 * as U+FFFD (decode.go unquoteBytes: "Invalid surrogate; fall back to replacement rune"), where
 * JSON.parse keeps a lone surrogate: replace them, in strings and keys.
 */
function wellFormed(v: JsonValue): JsonValue {
  if (typeof v === 'string') return v.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(v)) return v.map(wellFormed);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const key of Object.keys(v)) setOwn(out, key.replace(LONE_SURROGATE, '\ufffd'), wellFormed(getOwn(v, key)!));
    return out;
  }
  return v;
}

function unmarshal(arg: unknown): unknown {
  // Kyverno declares the argument dyn and converts it to a Go string when called.
  const text = goStringArgument(arg);
  checkBuiltSize(text.length, 'the argument of json.unmarshal');
  try {
    const doc = parseJson(text);
    return documentToCel(MAY_HOLD_SURROGATE.test(text) ? wellFormed(doc) : doc);
  } catch (e) {
    // Go's encoding/json names the first syntax error as its scanner sees it.
    if (e instanceof JsonParseError) throw celError(goJsonSyntaxError(text) ?? e.message);
    throw e;
  }
}

export const jsonLibrary: CelLibrary = {
  name: 'kyverno.json',
  register(r: LibraryRegistrar) {
    r.registerFunction('json.unmarshal(dyn): dyn', unmarshal);
    r.registerFunction('json.marshal(dyn): string', (v: unknown) => marshalCel(v));
  },
  callCost(fn, args, result) {
    // One pass over the text read or written.
    if (fn === 'json.unmarshal') return 1 + traversal(args[0]);
    if (fn === 'json.marshal') return 1 + (typeof result === 'string' ? Math.ceil(actualSize(result) * 0.1) : 0);
    return undefined;
  },
};
