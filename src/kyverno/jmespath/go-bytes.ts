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

/** Bytes as a Go string: UTF-8 decoded, each rejected byte kept as U+DC00 + byte. */
export function goStringFromBytes(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    // not UTF-8: below
  }
  let out = '';
  let start = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = utf8SequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += decoder.decode(bytes.subarray(start, i)) + String.fromCharCode(0xdc00 + bytes[i]);
    i++;
    start = i;
  }
  return out + decoder.decode(bytes.subarray(start));
}

/** A Go string's bytes: UTF-8, a kept byte (U+DC80 to U+DCFF alone) as itself, any other lone surrogate as U+FFFD. */
export function goStringBytes(s: string): Uint8Array {
  if (!LONE_SURROGATE.test(s)) return encoder.encode(s);
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        for (const b of encoder.encode(s.slice(i, i + 2))) out.push(b);
        i++;
        continue;
      }
    }
    if (c >= 0xdc80 && c <= 0xdcff) out.push(c - 0xdc00);
    else for (const b of encoder.encode(s[i])) out.push(b);
  }
  return Uint8Array.from(out);
}
