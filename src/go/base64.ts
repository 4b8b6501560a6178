/**
 * encoding/base64 decoding: StdEncoding (padding required) and RawStdEncoding (no padding; '=' is an
 * illegal character). Both ignore \r and \n and accept non-zero trailing bits, as Go does; errors carry
 * Go's CorruptInputError text.
 */
import { B64_INDEX } from './der.js';

export function base64Decode(text: string, padded = true): Uint8Array {
  const out: number[] = [];
  const quad: number[] = [];
  let padding = 0;
  const fail = (at: number) => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' || c === '\n') continue;
    if (padding > 0) {
      if (c !== '=' || quad.length + padding >= 4) fail(i);
      padding++;
      continue;
    }
    if (c === '=' && padded) {
      if (quad.length < 2) fail(i);
      padding = 1;
      continue;
    }
    const v = B64_INDEX.get(c);
    if (v === undefined) fail(i);
    quad.push(v!);
    if (quad.length === 4) {
      const n = (quad[0] << 18) | (quad[1] << 12) | (quad[2] << 6) | quad[3];
      out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
      quad.length = 0;
    }
  }
  if (padding > 0 && quad.length + padding !== 4) fail(text.length);
  // Go reports the start of an incomplete quantum: any one with padding required, a single character without.
  if (padding === 0 && quad.length !== 0 && (padded || quad.length === 1)) fail(lengthWithoutTrailingNewlines(text) - quad.length);
  if (quad.length >= 2) {
    const n = (quad[0] << 18) | (quad[1] << 12) | ((quad[2] ?? 0) << 6);
    out.push((n >> 16) & 255);
    if (quad.length === 3) out.push((n >> 8) & 255);
  }
  return Uint8Array.from(out);
}

/**
 * The text's length without its trailing \r and \n, by a scan from the end: the RegExp /[\r\n]+$/ tries
 * every start of a run of them, quadratic in a long run that does not end the text.
 */
function lengthWithoutTrailingNewlines(text: string): number {
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\r' || text[end - 1] === '\n')) end--;
  return end;
}
