/**
 * JSON text decoded as Go's json.Unmarshal into interface{} decodes it, for JMESPath's `literal`
 * (go-jmespath's parser) and Kyverno's parse_json. Beyond `JSON.parse`: a number past the double range
 * is refused (Go: strconv's range error; `JSON.parse` reads ±Infinity, which no JSON document can hold
 * and every later step would trip on), and so is a document nested deeper than the engines walk.
 * Not src/json's parseJson, which refuses the same: it keeps a number's literal form (`1.0` a double, an
 * int64 past 2^53 exact) for CEL, and go-jmespath's values are plain float64s.
 */
import { goJsonSyntaxError } from '../../go/index.js';
import { DEFAULT_MAX_DEPTH, heightUpTo, setOwn, type JsonValue } from '../../json/index.js';

/**
 * Decodes `text`; throws an Error whose message says what is wrong (the caller adds where). A text
 * that is not JSON is reported as Go's scanner reports it (`unexpected end of JSON input`, `invalid
 * character '2' after top-level value`), not with V8's wording: Kyverno's parse_json returns that
 * error as its message.
 */
export function decodeGoJson(text: string): JsonValue {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new Error(goJsonSyntaxError(text) ?? (e as Error).message);
  }
  if (heightUpTo(value, DEFAULT_MAX_DEPTH) > DEFAULT_MAX_DEPTH) throw new Error(`the document nests deeper than ${DEFAULT_MAX_DEPTH} levels`);
  if (holdsNonFinite(value)) throw new Error(`json: cannot unmarshal number ${outOfRangeNumber(text)} into Go value of type float64`);
  // Go decodes a \u escape of a lone surrogate as U+FFFD; JSON.parse keeps the lone surrogate.
  return SURROGATE_ESCAPE.test(text) ? wellFormed(value) : value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A lone surrogate (with the u flag a pair is one code point, outside the class). */
const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;

/** `value` with every lone surrogate of its strings and keys replaced by U+FFFD (its height is bounded). */
function wellFormed(value: JsonValue): JsonValue {
  if (typeof value === 'string') return value.replace(LONE_SURROGATES, '\uFFFD');
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(wellFormed);
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) setOwn(out, key.replace(LONE_SURROGATES, '\uFFFD'), wellFormed(value[key]));
  return out;
}

/** Whether a number of `value` is ±Infinity (its height is bounded, so recursion is safe). */
function holdsNonFinite(value: JsonValue): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsNonFinite);
  for (const key in value) if (Object.hasOwn(value, key) && holdsNonFinite(value[key])) return true;
  return false;
}

/** The first number literal of `text` (outside strings) that reads as ±Infinity, as Go quotes it. */
function outOfRangeNumber(text: string): string {
  const outsideStrings = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const [literal] of outsideStrings.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) if (!Number.isFinite(Number(literal))) return literal;
  return 'out of range';
}
