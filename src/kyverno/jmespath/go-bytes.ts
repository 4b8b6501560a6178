/**
 * Go strings are bytes. base64_decode returns the decoded bytes as a Go string whatever they are, so
 * `sha256(base64_decode(x))` hashes the original bytes and `base64_encode(base64_decode(x))` gives x
 * back even when the data is not UTF-8. A JavaScript string cannot hold such bytes; decoding them to
 * U+FFFD (as TextDecoder does) changes what later functions see.
 *
 * So each byte Go's utf8.DecodeRune would reject is kept as the lone surrogate U+DC00 + byte (U+DC80
 * to U+DCFF, never part of well-formed text), and turned back into that byte where a function reads
 * the string's bytes. Everything else still sees one code point per rejected byte, as Go counts one
 * rune per rejected byte (`length`), and JSON output writes each as U+FFFD, as Go's encoder does.
 */

import { utf8SequenceLength } from '../../go/index.js';

// ignoreBOM: a leading EF BB BF is U+FEFF of the Go string, which TextDecoder would drop.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();
/** A lone surrogate (with the u flag a pair is one code point, outside the class). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Bytes as a Go string: UTF-8 decoded, each rejected byte kept as U+DC00 + byte. Text that is not UTF-8
 * is decoded here by hand into code units, in one pass: a TextDecoder call per valid run cost a few
 * microseconds each, and the 2.25 MB that base64_decode makes of a 3 MB review's text took 3.8 s.
 */
export function goStringFromBytes(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    // not UTF-8: below
  }
  const units = new Uint16Array(bytes.length); // a byte gives at most one code unit (4 bytes give 2)
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    const length = utf8SequenceLength(bytes, i);
    const b0 = bytes[i];
    if (length === 0) units[n++] = 0xdc00 + b0;
    else if (length === 1) units[n++] = b0;
    else if (length === 2) units[n++] = ((b0 & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
    else if (length === 3) units[n++] = ((b0 & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
    else {
      const cp = (((b0 & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f)) - 0x10000;
      units[n++] = 0xd800 + (cp >> 10);
      units[n++] = 0xdc00 + (cp & 0x3ff);
    }
    i += length || 1;
  }
  return unitsToString(units, n);
}

/** The first `n` code units as a string, lone surrogates kept (a UTF-16 TextDecoder would replace them). */
function unitsToString(units: Uint16Array, n: number): string {
  const parts: string[] = [];
  // apply() takes the typed array as it is; a spread copies it into an argument list first (8x slower).
  for (let at = 0; at < n; at += CHUNK) parts.push(String.fromCharCode.apply(null, units.subarray(at, Math.min(n, at + CHUNK)) as unknown as number[]));
  return parts.join('');
}

/** Code units per String.fromCharCode call (its arguments go on the stack). */
const CHUNK = 8192;

/**
 * A Go string's bytes: UTF-8, a kept byte (U+DC80 to U+DCFF alone) as itself, any other lone surrogate as
 * U+FFFD. Encoded by hand in one pass when the text holds lone surrogates (an encoder call per
 * character cost a second over such a 3 MB text).
 */
export function goStringBytes(s: string): Uint8Array {
  if (!LONE_SURROGATE.test(s)) return encoder.encode(s);
  const out = new Uint8Array(s.length * 3);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out[n++] = 0xf0 | (cp >> 18);
        out[n++] = 0x80 | ((cp >> 12) & 0x3f);
        out[n++] = 0x80 | ((cp >> 6) & 0x3f);
        out[n++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
    }
    if (c >= 0xdc80 && c <= 0xdcff) {
      out[n++] = c - 0xdc00;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return out.slice(0, n);
}
