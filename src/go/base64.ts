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
  const out: number[] = [];
  const n = text.length;
  const fail = (at: number): never => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  const isNewline = (c: string) => c === '\n' || c === '\r';
  const dbuf = [0, 0, 0, 0];
  let si = 0;
  while (si < n) {
    dbuf.fill(0);
    let dlen = 4;
    for (let j = 0; j < 4; j++) {
      if (si === n) {
        if (j === 0) return Uint8Array.from(out);
        if (j === 1 || padded) fail(si - j);
        dlen = j;
        break;
      }
      const c = text[si++];
      const v = B64_INDEX.get(c);
      if (v !== undefined) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (!padded || c !== '=') fail(si - 1);
      // Padding: the end of the data.
      if (j < 2) fail(si - 1);
      if (j === 2) {
        // "==" is expected, the first "=" is read already.
        while (si < n && isNewline(text[si])) si++;
        if (si === n) fail(n);
        if (text[si] !== '=') fail(si - 1);
        si++;
      }
      while (si < n && isNewline(text[si])) si++;
      if (si < n) fail(si); // trailing garbage
      dlen = j;
      break;
    }
    const v = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
    if (dlen >= 2) out.push((v >> 16) & 255);
    if (dlen >= 3) out.push((v >> 8) & 255);
    if (dlen === 4) out.push(v & 255);
  }
  return Uint8Array.from(out);
}
