/**
 * JSON Pointer (RFC 6901) text handling: escaping, strict parsing, the Go libraries' lenient splitting,
 * and the two array-index grammars (RFC decimal, Go `strconv.Atoi`).
 */
import { strconvQuote } from '../go/index.js';

const SLASH = 0x2f, TILDE = 0x7e;

/**
 * Escapes one reference token: `~` → `~0`, `/` → `~1`, in a single pass (`k8s.io/x~y` → `k8s.io~1x~0y`).
 * A character loop: every key of a diff and every `jsonpatch.escapeKey` call comes here, and a regular
 * expression replace with a callback costs ten times as much.
 */
export function escapeToken(key: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c !== SLASH && c !== TILDE) continue;
    out += key.slice(from, i) + (c === TILDE ? '~0' : '~1');
    from = i + 1;
  }
  return from === 0 ? key : out + key.slice(from);
}

/**
 * Decodes one reference token: `~1` → `/`, `~0` → `~`, in one left-to-right pass, so `~01` is `~1`
 * (not `/`). A `~` followed by anything else is left as it is, as the Go libraries do; the strict parser
 * rejects it before calling this.
 */
export function unescapeToken(token: string): string {
  const first = token.indexOf('~');
  if (first < 0) return token;
  // One left-to-right pass (the RFC's `~1` first, then `~0`, comes to the same).
  let out = '';
  let from = 0;
  for (let i = first; i >= 0 && i + 1 < token.length; i = token.indexOf('~', i + 1)) {
    const next = token.charCodeAt(i + 1);
    if (next !== 0x30 && next !== 0x31) continue;
    out += token.slice(from, i) + (next === 0x30 ? '~' : '/');
    from = i + 2;
    i++;
  }
  return out + token.slice(from);
}

/** Formats reference tokens (object keys or array indices) as a pointer: `['a/b', 0]` → `/a~1b/0`. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let out = '';
  for (const t of tokens) out += '/' + (typeof t === 'number' ? String(t) : escapeToken(t));
  return out;
}

export type PointerParse = { ok: true; tokens: string[] } | { ok: false; error: string };

const BAD_TILDE = /~(?![01])/;

/**
 * Strict RFC 6901 parse: `""` is the whole document, anything else must start with `/`, and `~` must be
 * followed by `0` or `1`. Returns the decoded reference tokens.
 */
export function parsePointer(pointer: string): PointerParse {
  if (pointer === '') return { ok: true, tokens: [] };
  if (pointer.charCodeAt(0) !== 0x2f) {
    return { ok: false, error: `invalid JSON pointer ${JSON.stringify(pointer)}: it must be empty or start with "/"` };
  }
  const raw = pointer.slice(1).split('/');
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i];
    if (token.indexOf('~') >= 0) {
      if (BAD_TILDE.test(token)) {
        return { ok: false, error: `invalid JSON pointer ${JSON.stringify(pointer)}: "~" must be followed by "0" or "1"` };
      }
      raw[i] = unescapeToken(token);
    }
  }
  return { ok: true, tokens: raw };
}

/**
 * The evanphx/json-patch reading of a path: split on `/` and drop the first piece, whatever it is. So a
 * path without a leading slash loses its first segment (`a/b` addresses `/b`) — the reference's silent
 * mis-handling that Kyverno inherits. Returns undefined when the path holds no `/` at all.
 * The raw (still escaped) pieces are returned; `goTokens` gives them decoded.
 */
export function splitGoPath(path: string): string[] | undefined {
  // Split the whole path (V8 caches splits of internalized strings), then drop the first piece.
  const split = path.split('/');
  if (split.length < 2) return undefined;
  split.shift();
  return split;
}

/** `splitGoPath` with every piece decoded (`~1` → `/`, `~0` → `~`). */
export function goTokens(path: string): string[] | undefined {
  const tokens = splitGoPath(path);
  if (tokens !== undefined && path.indexOf('~') >= 0) {
    for (let i = 0; i < tokens.length; i++) tokens[i] = unescapeToken(tokens[i]);
  }
  return tokens;
}

const RFC_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * Strict RFC 6901 array index: `0` or a decimal without leading zeros or sign. Undefined when not one.
 * Huge values come back imprecise but still beyond every array's length, which is all that matters.
 */
export function parseRfcIndex(token: string): number | undefined {
  return RFC_INDEX.test(token) ? Number(token) : undefined;
}

export type GoInt = { ok: true; value: number; text: string } | { ok: false; error: string };

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Go's `strconv.Atoi`: an optional sign and at least one decimal digit (`01`, `+1`, `-0` are fine),
 * within int64. `value` is exact up to 2^53 (every larger value is out of any array's range anyway);
 * `text` is the exact decimal Go would print with `%d`. The error text is Go's.
 */
export function parseGoInt(token: string): GoInt {
  const n = token.length;
  let i = 0;
  let negative = false;
  if (n > 0 && (token.charCodeAt(0) === 0x2b || token.charCodeAt(0) === 0x2d)) {
    negative = token.charCodeAt(0) === 0x2d;
    i = 1;
  }
  if (i === n) return { ok: false, error: atoiError(token, 'invalid syntax') };
  let value = 0;
  for (let j = i; j < n; j++) {
    const c = token.charCodeAt(j) - 0x30;
    if (c < 0 || c > 9) return { ok: false, error: atoiError(token, 'invalid syntax') };
    value = value * 10 + c;
  }
  if (value <= Number.MAX_SAFE_INTEGER) {
    const signed = negative && value !== 0 ? -value : 0 + value;
    return { ok: true, value: signed, text: String(signed) };
  }
  const big = BigInt(token.slice(i)) * (negative ? -1n : 1n);
  if (big > INT64_MAX || big < INT64_MIN) return { ok: false, error: atoiError(token, 'value out of range') };
  return { ok: true, value: Number(big), text: big.toString() };
}

function atoiError(token: string, what: string): string {
  return `strconv.Atoi: parsing ${strconvQuote(token)}: ${what}`;
}
