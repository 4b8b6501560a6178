import { isJsonObject, JsonParseError, parseJson } from '../json/index.js';

export type JoinResult = { ok: true; patch: string | null } | { ok: false; message: string; chunkIndex: number };

/**
 * Kyverno's `JoinPatches`: patch texts from several rules or foreach iterations, each a single operation
 * object or an array of them, joined textually into one JSON array (`[op, op, …]`). Blank chunks and empty
 * arrays are skipped; nothing left → `patch: null` (no patch). Joining is textual so every value keeps the
 * exact literal it was written with (`1.0` stays `1.0`).
 *
 * Unlike the Go helper, which would happily build invalid JSON, every chunk is checked first: it must be a
 * JSON object or an array of objects, else the join fails with the chunk's index.
 */
export function joinPatches(chunks: readonly string[]): JoinResult {
  const parts: string[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i];
    if (typeof chunk !== 'string') return { ok: false, chunkIndex: i, message: `patch chunk ${i} is not text` };
    const text = chunk.trim();
    if (text === '') continue;
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (err) {
      const why = err instanceof JsonParseError ? err.message : String(err);
      return { ok: false, chunkIndex: i, message: `patch chunk ${i} is not valid JSON: ${why}` };
    }
    if (Array.isArray(value)) {
      if (!value.every(isJsonObject)) {
        return { ok: false, chunkIndex: i, message: `patch chunk ${i} must hold only operation objects` };
      }
      const inner = text.slice(1, -1).trim();
      if (inner !== '') parts.push(inner);
    } else if (isJsonObject(value)) {
      parts.push(text);
    } else {
      return { ok: false, chunkIndex: i, message: `patch chunk ${i} must be an operation object or an array of them` };
    }
  }
  return { ok: true, patch: parts.length === 0 ? null : '[' + parts.join(', ') + ']' };
}
