/**
 * Just enough HPACK (RFC 7541) for the HTTP/2 sweep. Writing: header fields as literals, names from the
 * static table where it has them, no Huffman and no dynamic table, so damage can be placed on any byte.
 * Reading: a response's `:status`, from a server told to keep no dynamic table (SETTINGS_HEADER_TABLE_SIZE
 * 0), whose status is thus either a static entry or a literal, raw or Huffman-coded (digits only).
 */

/** An HPACK integer with an N-bit prefix (§5.1); `flags` fills the first byte's high bits. */
function hpackInt(value: number, prefixBits: number, flags = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([flags | value]);
  const bytes = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) | 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A string literal without Huffman: its length, then its bytes as given (latin1: one byte per code unit). */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInt(bytes.length, 7), bytes]);
}

/** Static-table indexes of the names requests use (RFC 7541 Appendix A). */
const STATIC_NAMES: Record<string, number> = { ':authority': 1, ':method': 2, ':path': 4, ':scheme': 6, 'accept-encoding': 16, 'content-length': 28, 'content-type': 31 };

/** A header block: each field a literal without indexing (§6.2.2), its name indexed when the static table has it. */
export function encodeFields(fields: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(
    fields.map(([name, value]) => {
      const index = Object.hasOwn(STATIC_NAMES, name) ? STATIC_NAMES[name] : 0;
      return Buffer.concat([index > 0 ? hpackInt(index, 4) : Buffer.concat([Buffer.from([0]), hpackString(name)]), hpackString(value)]);
    }),
  );
}

/** The statuses of the static table (indexes 8–14). */
const STATIC_STATUS: Record<number, number> = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 };
const STATUS_NAME_INDEX = 8; // first `:status` entry: a literal with this name index carries a status

/** Huffman codes of the ten digits (RFC 7541 Appendix B), as [code, bit length]. */
const DIGIT_CODES: readonly [number, number][] = [
  [0b00000, 5], [0b00001, 5], [0b00010, 5], [0b011001, 6], [0b011010, 6],
  [0b011011, 6], [0b011100, 6], [0b011101, 6], [0b011110, 6], [0b011111, 6],
];

/** A Huffman-coded string of digits, or an Error when it holds anything else. */
function huffmanDigits(bytes: Buffer): string | Error {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  let at = 0;
  while (at < bits.length) {
    const digit = DIGIT_CODES.findIndex(([code, length]) => at + length <= bits.length && Number.parseInt(bits.slice(at, at + length), 2) === code);
    if (digit < 0) break;
    out += String(digit);
    at += DIGIT_CODES[digit][1];
  }
  const padding = bits.slice(at);
  // The end is padded with at most 7 bits of the EOS code's prefix: ones (§5.2).
  return padding.length < 8 && /^1*$/.test(padding) ? out : new Error(`a Huffman string that is not digits: ${bytes.toString('hex')}`);
}

/** Reads an HPACK integer at `at`; returns it and where the next field begins. */
function readInt(block: Buffer, at: number, prefixBits: number): [number, number] {
  const max = (1 << prefixBits) - 1;
  let value = block[at] & max;
  let next = at + 1;
  if (value < max) return [value, next];
  let shift = 1;
  for (;;) {
    if (next >= block.length) throw new Error('an integer cut short');
    const b = block[next++];
    value += (b & 127) * shift;
    shift *= 128;
    if ((b & 128) === 0) return [value, next];
    if (shift > 2 ** 35) throw new Error('an integer too large');
  }
}

/** Reads a string literal at `at`: its bytes decoded (Huffman digits only) or raw, and where it ends. */
function readString(block: Buffer, at: number): [Buffer, boolean, number] {
  if (at >= block.length) throw new Error('a string cut short');
  const huffman = (block[at] & 0x80) !== 0;
  const [length, start] = readInt(block, at, 7);
  if (start + length > block.length) throw new Error('a string past the block');
  return [block.subarray(start, start + length), huffman, start + length];
}

/**
 * The `:status` of a response's header block, from a server that keeps no dynamic table; throws when the
 * block cannot be read so, or has no status or two.
 */
export function responseStatus(block: Buffer): number {
  const statuses: number[] = [];
  let at = 0;
  while (at < block.length) {
    const first = block[at];
    if (first & 0x80) {
      // indexed field (§6.1)
      const [index, next] = readInt(block, at, 7);
      if (index === 0 || index > 61) throw new Error(`an indexed field outside the static table: ${index}`);
      if (Object.hasOwn(STATIC_STATUS, index)) statuses.push(STATIC_STATUS[index]);
      at = next;
    } else if ((first & 0xe0) === 0x20) {
      // dynamic table size update (§6.3)
      at = readInt(block, at, 5)[1];
    } else {
      // literal, with incremental indexing (§6.2.1: 6-bit prefix) or without / never indexed (4-bit)
      const [nameIndex, next] = readInt(block, at, (first & 0xc0) === 0x40 ? 6 : 4);
      if (nameIndex > 61) throw new Error(`a name outside the static table: ${nameIndex}`);
      at = nameIndex === 0 ? readString(block, next)[2] : next;
      const [value, huffman, end] = readString(block, at);
      at = end;
      if (nameIndex === STATUS_NAME_INDEX || (nameIndex >= 9 && nameIndex <= 14)) {
        const text = huffman ? huffmanDigits(value) : value.toString('latin1');
        if (text instanceof Error) throw text;
        if (!/^\d{3}$/.test(text)) throw new Error(`a status that is not three digits: ${JSON.stringify(text)}`);
        statuses.push(Number(text));
      }
    }
  }
  if (statuses.length !== 1) throw new Error(`${statuses.length} statuses in one header block`);
  return statuses[0];
}
