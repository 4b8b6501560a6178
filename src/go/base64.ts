/**
 * encoding/base64 decoding: StdEncoding (padding required) and RawStdEncoding (no padding; '=' is an
 * illegal character). Both ignore \r and \n and accept non-zero trailing bits, as Go does; errors carry
 * Go's CorruptInputError text.
 */
import { B64_INDEX } from './der.js';

/**
 * Encoding.DecodeString, quantum by quantum as decodeQuantum reads them, so that an error names the byte
 * Go names: a padding `=` followed by anything but `=` is reported at that `=` (`AA=A`: 2), an
 * incomplete last quantum at the text's end less its characters (newlines after them counted: `AAA\n`
 * is 1). Every character before an error is ASCII (any other is an error itself), so string indices
 * are Go's byte offsets.
 */
export function base64Decode(text: string, padded = true): Uint8Array {
  const n = text.length;
  // At most 3 bytes per 4 characters (newlines only make it less), and a last short quantum.
  const out = new Uint8Array(Math.floor(n / 4) * 3 + 3);
  let written = 0;
  const fail = (at: number): never => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  const isNewline = (c: number) => c === 0x0a || c === 0x0d;
  let si = 0;
  while (si < n) {
    let v = 0; // the quantum's 6-bit digits, first one highest
    let dlen = 4;
    for (let j = 0; j < 4; j++) {
      if (si === n) {
        if (j === 0) return exact(out, written);
        if (j === 1 || padded) fail(si - j);
        dlen = j;
        v <<= 6 * (4 - j);
        break;
      }
      const c = text.charCodeAt(si++);
      const d = c < 128 ? DIGITS[c] : -1;
      if (d >= 0) {
        v = (v << 6) | d;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (!padded || c !== 0x3d) fail(si - 1);
      // Padding: the end of the data.
      if (j < 2) fail(si - 1);
      if (j === 2) {
        // "==" is expected, the first "=" is read already.
        while (si < n && isNewline(text.charCodeAt(si))) si++;
        if (si === n) fail(n);
        if (text.charCodeAt(si) !== 0x3d) fail(si - 1);
        si++;
      }
      while (si < n && isNewline(text.charCodeAt(si))) si++;
      if (si < n) fail(si); // trailing garbage
      dlen = j;
      v <<= 6 * (4 - j);
      break;
    }
    out[written++] = (v >> 16) & 255;
    if (dlen >= 3) out[written++] = (v >> 8) & 255;
    if (dlen === 4) out[written++] = v & 255;
  }
  return exact(out, written);
}

/** The bytes written, in an array of their own (not a view keeping the whole allocation alive). */
const exact = (out: Uint8Array, written: number) => (written === out.length ? out : out.slice(0, written));

/** The standard alphabet's digit of each ASCII code, -1 for any other character. */
const DIGITS = (() => {
  const table = new Int8Array(128).fill(-1);
  for (const [c, i] of B64_INDEX) table[c.charCodeAt(0)] = i;
  return table;
})();
