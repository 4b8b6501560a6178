/**
 * A Go `[]byte` field's JSON form: encoding/json decodes the string with base64.StdEncoding (padding
 * required, `\r` and `\n` skipped, the unused bits of the last symbol ignored) and encodes the bytes back
 * with padding. Strict decoding of a JSON patch's result refuses what does not decode, the round trip
 * between mutations writes the canonical text.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int8Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

const PAD = 0x3d; // '='
const isNewline = (b: number) => b === 0x0a || b === 0x0d;

/** `illegal base64 data at input byte N` (base64.CorruptInputError), or the decoded bytes. */
export type Base64Result = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

/** base64.StdEncoding.DecodeString on the string's UTF-8 bytes, error offsets as Go's decodeQuantum has them. */
export function decodeGoBase64(text: string): Base64Result {
  const src = new TextEncoder().encode(text);
  const out: number[] = [];
  let si = 0;
  for (;;) {
    // One quantum: up to four symbols, newlines skipped, padding ends the input.
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing: number | undefined;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { ok: true, bytes: Uint8Array.from(out) };
        return corrupt(si - j);
      }
      const c = src[si++];
      const v = DECODE[c];
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) return corrupt(si - 1);
      // Padding: "==" after two symbols, "=" after three; then only newlines may follow.
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    for (let k = 0; k < dlen - 1; k++) out.push(bytes[k]);
    if (trailing !== undefined) return corrupt(trailing);
    if (dlen < 4) return { ok: true, bytes: Uint8Array.from(out) };
  }
}

function corrupt(offset: number): Base64Result {
  return { ok: false, message: `illegal base64 data at input byte ${offset}` };
}

/** base64.StdEncoding.EncodeToString. */
export function encodeGoBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63] + ALPHABET[(v >> 6) & 63] + ALPHABET[v & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const v = bytes[i] << 16;
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63] + '==';
  } else if (rest === 2) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63] + ALPHABET[(v >> 6) & 63] + '=';
  }
  return out;
}

/** The text a `[]byte` field holds after the Go round trip; `text` itself when it is canonical or does not decode. */
export function canonicalGoBase64(text: string): string {
  const d = decodeGoBase64(text);
  if (!d.ok) return text;
  const canonical = encodeGoBase64(d.bytes);
  return canonical === text ? text : canonical;
}
