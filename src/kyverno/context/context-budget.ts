/**
 * Kyverno's context size budget (pkg/engine/context/context.go, since v1.17.0): every context entry a
 * loader adds (AddContextEntry: configMap, apiCall; ReplaceContextEntry: variable) counts the bytes of
 * its JSON against a limit, `maxContextSize` of Kyverno's ConfigMap, 2 MiB by default (0 or less: no
 * limit). The count is cumulative over the whole admission request — every mutate policy of the review
 * shares one context — and nothing lowers it: a checkpoint restored, an entry replaced or dropped still
 * counts, and an entry Kyverno loads again into a restored context (deferred loaders reloaded on each
 * foreach element and at each restore) counts again. An entry that would pass the limit is refused with
 * ContextSizeLimitExceededError's message. Bytes are those of Go's json.Marshal of the entry's value
 * (for an API response read whole, Kyverno counts the response body as the API server wrote it: its
 * compact JSON is the same length but for the order and escaping of what it holds).
 */
import type { ReviewGuard } from '../../guard/index.js';
import { isJsonObject, type JsonValue } from '../../json/index.js';
import { goJsonNumber } from '../../go/index.js';

/** config.DefaultMaxContextSize. */
export const DEFAULT_MAX_CONTEXT_SIZE = 2 * 1024 * 1024;

/** A loaded value with its measure, kept across reloads: the value never changes once loaded. */
export interface Measured {
  readonly value: JsonValue;
  /** Its JSON bytes; Infinity once known to be past the room (the room only shrinks). */
  bytes: number | undefined;
}

export class ContextBudget {
  /** Bytes counted so far (context.contextSize). */
  used = 0;

  constructor(readonly limit: number = DEFAULT_MAX_CONTEXT_SIZE) {}

  /** Counts the value when it fits in the room left (checkContextSizeLimit, then the addition). */
  take(entry: Measured, guard: ReviewGuard): boolean {
    if (this.limit <= 0) return true;
    const room = this.limit - this.used;
    if (entry.bytes === undefined) {
      const n = goJsonLength(entry.value, room, guard);
      entry.bytes = n > room ? Infinity : n;
    }
    if (entry.bytes > room) return false;
    this.used += entry.bytes;
    return true;
  }

  /** ContextSizeLimitExceededError's message for a value `take` refused. */
  refusal(entry: Measured, guard: ReviewGuard): string {
    // Kyverno states the whole size; `take` stopped counting past the room, so count it all (the value is
    // a query result the review's size bound measured, so this is bounded too).
    const bytes = Number.isFinite(entry.bytes) ? entry.bytes! : goJsonLength(entry.value, Number.MAX_SAFE_INTEGER, guard);
    return `context size limit exceeded: ${this.used + bytes} bytes exceeds limit of ${this.limit} bytes`;
  }
}

/**
 * The length in bytes of Go's json.Marshal of `value` (compact; `<` `>` `&` U+2028 U+2029 and control
 * characters escaped; UTF-8), or a number past `stop` once the count passes it: a value whose subtrees
 * are shared can be far longer as text than in memory, and only whether it fits matters then.
 */
export function goJsonLength(value: JsonValue, stop: number, guard: ReviewGuard): number {
  let total = 0;
  const walk = (v: JsonValue): void => {
    if (total > stop) return;
    if (v === null) total += 4;
    else if (typeof v === 'boolean') total += v ? 4 : 5;
    else if (typeof v === 'number') total += goJsonNumber(v).length;
    else if (typeof v === 'string') total += stringLength(v);
    else if (Array.isArray(v)) {
      guard.tick();
      total += v.length === 0 ? 2 : v.length + 1; // brackets and commas
      for (let i = 0; i < v.length && total <= stop; i++) walk(v[i]);
    } else if (isJsonObject(v)) {
      guard.tick();
      const keys = Object.keys(v);
      total += keys.length === 0 ? 2 : 2 * keys.length + 1; // braces, colons and commas
      for (let i = 0; i < keys.length && total <= stop; i++) {
        total += stringLength(keys[i]);
        walk(v[keys[i]]);
      }
    }
  };
  walk(value);
  return total;
}

/** A JSON string's bytes as encoding/json writes it, quotes included. */
function stringLength(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) n += 2;
      else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) n += 6; // \u00XX
      else n += 1;
    } else if (c < 0x800) n += 2;
    else if (c === 0x2028 || c === 0x2029) n += 6;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // a lone surrogate is U+FFFD in Go's decoded text: 3 bytes
  }
  return n;
}
