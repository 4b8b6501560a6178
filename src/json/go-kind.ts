import type { JsonValue } from './types.js';

/**
 * The JSON kind of `v` as Go's encoding/json names it in "json: cannot unmarshal <kind> into …"
 * (UnmarshalTypeError.Value): array, object, number, bool, string; null never fails a decode, but is named.
 */
export function goJsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}
