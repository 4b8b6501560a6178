/**
 * compress/gzip as Go reads it (`gzip.NewReader` + `io.ReadAll`, over compress/flate), with Go's error
 * texts: `EOF` (no input), `unexpected EOF` (input cut short), `gzip: invalid header`, `gzip: invalid
 * checksum`, `flate: corrupt input before offset N` (N counted in the deflate stream as Go's
 * decompressor counts the bytes it has read). Concatenated members are read one after the other (Go's
 * multistream default). Huffman codes are decoded bit by bit from their canonical form (no table per
 * block, so a stream of many small dynamic blocks costs what its bytes cost); the output is bounded by
 * the caller's `maxOutput` before it grows past it (a small input can inflate a thousandfold).
 *
 * Writing: a gzip member as Go's gzip.Writer frames it (no name, modification time 0, OS 255, CRC-32 and
 * size trailer) around stored deflate blocks. Any gzip reader reads it back to the same bytes, but the
 * bytes are not those of Go's compressor (Go's DEFLATE level 6 output is not reproduced).
 */

export class GzipError extends Error {
  override name = 'GzipError';
}

/** Thrown when the decompressed output would pass the caller's bound. */
export class GzipOutputTooLarge extends Error {
  override name = 'GzipOutputTooLarge';
  constructor(readonly size: number) {
    super(`the decompressed data is larger than ${size} bytes`);
  }
}

const unexpectedEOF = () => new GzipError('unexpected EOF');
const invalidHeader = () => new GzipError('gzip: invalid header');

let CRC_TABLE: Uint32Array | undefined;
function crc32(data: Uint8Array, from = 0, to = data.length, crc = 0): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let c = ~crc;
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** A canonical Huffman code: count of codes per length, symbols in code order. */
interface Huffman {
  count: Uint16Array;
  symbol: Uint16Array;
  min: number;
  max: number;
}

/**
 * Go's huffmanDecoder.init: undefined for a code that is over-subscribed or incomplete, except the
 * empty code and a single code of length 1 (accepted, as zlib does).
 */
function buildHuffman(lengths: ArrayLike<number>): Huffman | undefined {
  const count = new Uint16Array(16);
  let min = 0;
  let max = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i];
    if (n === 0) continue;
    if (min === 0 || n < min) min = n;
    if (n > max) max = n;
    count[n]++;
  }
  const offs = new Uint16Array(16);
  const symbol = new Uint16Array(lengths.length);
  if (max === 0) return { count, symbol, min, max };
  let code = 0;
  for (let i = min; i <= max; i++) code = (code << 1) + count[i];
  if (code !== 1 << max && !(code === 1 && max === 1)) return undefined;
  for (let i = 1; i < 16; i++) offs[i] = offs[i - 1] + count[i - 1];
  for (let i = 0; i < lengths.length; i++) if (lengths[i] !== 0) symbol[offs[lengths[i]]++] = i;
  return { count, symbol, min, max };
}

let FIXED_LIT: Huffman | undefined;
function fixedLiterals(): Huffman {
  if (!FIXED_LIT) {
    const lengths = new Uint8Array(288);
    lengths.fill(8, 0, 144);
    lengths.fill(9, 144, 256);
    lengths.fill(7, 256, 280);
    lengths.fill(8, 280, 288);
    FIXED_LIT = buildHuffman(lengths)!;
  }
  return FIXED_LIT;
}

const CODE_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** The bytes of a gzip stream as io.ReadAll(gzip.NewReader(...)) returns them. Throws GzipError. */
export function gunzip(data: Uint8Array, maxOutput = Infinity): Uint8Array {
  let pos = 0;
  let out = new Uint8Array(Math.min(Math.max(64, data.length * 4), maxOutput === Infinity ? data.length * 4 + 64 : maxOutput));
  let size = 0;

  const ensure = (extra: number) => {
    const need = size + extra;
    if (need > maxOutput) throw new GzipOutputTooLarge(maxOutput);
    if (need <= out.length) return;
    let cap = out.length * 2;
    while (cap < need) cap *= 2;
    const grown = new Uint8Array(Math.min(cap, maxOutput));
    grown.set(out.subarray(0, size));
    out = grown;
  };

  /** Go's readHeader: false at a clean end of input (io.EOF). */
  const readHeader = (): boolean => {
    if (pos >= data.length) return false;
    if (data.length - pos < 10) throw unexpectedEOF();
    const start = pos;
    if (data[pos] !== 0x1f || data[pos + 1] !== 0x8b || data[pos + 2] !== 8) throw invalidHeader();
    const flags = data[pos + 3];
    pos += 10;
    if (flags & 4) {
      if (data.length - pos < 2) throw unexpectedEOF();
      const n = data[pos] | (data[pos + 1] << 8);
      pos += 2;
      if (data.length - pos < n) throw unexpectedEOF();
      pos += n;
    }
    // Name and comment: NUL-terminated, at most 512 bytes with the NUL.
    for (const flag of [8, 16]) {
      if (!(flags & flag)) continue;
      for (let i = 0; ; i++) {
        if (i >= 512) throw invalidHeader();
        if (pos >= data.length) throw unexpectedEOF();
        if (data[pos++] === 0) break;
      }
    }
    if (flags & 2) {
      if (data.length - pos < 2) throw unexpectedEOF();
      const want = data[pos] | (data[pos + 1] << 8);
      if (want !== (crc32(data, start, pos) & 0xffff)) throw invalidHeader();
      pos += 2;
    }
    return true;
  };

  /** One deflate stream from `pos`, appended to the output (Go's compress/flate decompressor). */
  const inflate = (memberStart: number) => {
    const base = pos; // roffset counts from here
    let bits = 0;
    let nb = 0;
    const corrupt = () => new GzipError(`flate: corrupt input before offset ${pos - base}`);
    const more = () => {
      if (pos >= data.length) throw unexpectedEOF();
      bits |= data[pos++] << nb;
      nb += 8;
    };
    const need = (n: number) => {
      while (nb < n) more();
    };
    const take = (n: number): number => {
      need(n);
      const v = bits & ((1 << n) - 1);
      bits >>>= n;
      nb -= n;
      return v;
    };
    /** Go's huffSym: reads at least `min` bits first, then as many bytes as the code needs. */
    const decode = (h: Huffman, min: number): number => {
      need(min);
      if (h.max === 0) throw corrupt();
      let code = 0;
      let first = 0;
      let index = 0;
      for (let len = 1; len <= h.max; len++) {
        if (nb < len) more();
        code |= (bits >>> (len - 1)) & 1;
        const count = h.count[len];
        if (code - first < count) {
          bits >>>= len;
          nb -= len;
          return h.symbol[index + code - first];
        }
        index += count;
        first = (first + count) << 1;
        code <<= 1;
      }
      throw corrupt();
    };

    for (;;) {
      need(3);
      const final = bits & 1;
      const type = (bits >>> 1) & 3;
      bits >>>= 3;
      nb -= 3;
      if (type === 0) {
        bits = 0;
        nb = 0;
        if (data.length - pos < 4) {
          pos = data.length;
          throw unexpectedEOF();
        }
        const n = data[pos] | (data[pos + 1] << 8);
        const nn = data[pos + 2] | (data[pos + 3] << 8);
        pos += 4;
        if ((nn ^ 0xffff) !== n) throw corrupt();
        if (data.length - pos < n) {
          const avail = data.length - pos;
          ensure(avail);
          out.set(data.subarray(pos, data.length), size);
          size += avail;
          throw unexpectedEOF();
        }
        ensure(n);
        out.set(data.subarray(pos, pos + n), size);
        size += n;
        pos += n;
      } else if (type === 1 || type === 2) {
        let lit: Huffman;
        let dist: Huffman | undefined;
        let litMin: number;
        if (type === 1) {
          lit = fixedLiterals();
          litMin = lit.min;
        } else {
          need(14);
          const nlit = take(5) + 257;
          if (nlit > 286) throw corrupt();
          const ndist = take(5) + 1;
          if (ndist > 30) throw corrupt();
          const nclen = take(4) + 4;
          const clen = new Uint8Array(19);
          for (let i = 0; i < nclen; i++) clen[CODE_ORDER[i]] = take(3);
          const h1 = buildHuffman(clen);
          if (!h1) throw corrupt();
          const lengths = new Uint8Array(nlit + ndist);
          for (let i = 0; i < nlit + ndist; ) {
            const x = decode(h1, h1.min);
            if (x < 16) {
              lengths[i++] = x;
              continue;
            }
            let rep: number;
            let b = 0;
            if (x === 16) {
              if (i === 0) throw corrupt();
              b = lengths[i - 1];
              rep = 3 + take(2);
            } else if (x === 17) rep = 3 + take(3);
            else rep = 11 + take(7);
            if (i + rep > nlit + ndist) throw corrupt();
            lengths.fill(b, i, i + rep);
            i += rep;
          }
          const l = buildHuffman(lengths.subarray(0, nlit));
          const d = buildHuffman(lengths.subarray(nlit));
          if (!l || !d) throw corrupt();
          lit = l;
          dist = d;
          // Go reads at least the end-of-block code's length for each literal/length symbol.
          litMin = Math.max(l.min, lengths[256]);
        }
        for (;;) {
          const v = decode(lit, litMin);
          if (v < 256) {
            ensure(1);
            out[size++] = v;
            continue;
          }
          if (v === 256) break;
          let length: number;
          let n: number;
          if (v < 265) [length, n] = [v - 254, 0];
          else if (v < 269) [length, n] = [v * 2 - 519, 1];
          else if (v < 273) [length, n] = [v * 4 - 1057, 2];
          else if (v < 277) [length, n] = [v * 8 - 2149, 3];
          else if (v < 281) [length, n] = [v * 16 - 4365, 4];
          else if (v < 285) [length, n] = [v * 32 - 8861, 5];
          else if (v < 286) [length, n] = [258, 0];
          else throw corrupt();
          if (n > 0) length += take(n);
          let d: number;
          if (!dist) {
            const r = take(5);
            d = ((r & 1) << 4) | ((r & 2) << 2) | (r & 4) | ((r & 8) >> 2) | ((r & 16) >> 4);
          } else d = decode(dist, dist.min);
          if (d < 4) d++;
          else if (d < 30) {
            const eb = (d - 2) >> 1;
            const extra = ((d & 1) << eb) | take(eb);
            d = (1 << (eb + 1)) + 1 + extra;
          } else throw corrupt();
          if (d > size - memberStart) throw corrupt();
          ensure(length);
          for (let i = 0; i < length; i++, size++) out[size] = out[size - d];
        }
      } else throw corrupt();
      if (final) return;
    }
  };

  if (!readHeader()) throw new GzipError('EOF');
  for (;;) {
    const memberStart = size;
    inflate(memberStart);
    if (data.length - pos < 8) throw unexpectedEOF();
    const digest = (data[pos] | (data[pos + 1] << 8) | (data[pos + 2] << 16) | (data[pos + 3] << 24)) >>> 0;
    const length = (data[pos + 4] | (data[pos + 5] << 8) | (data[pos + 6] << 16) | (data[pos + 7] << 24)) >>> 0;
    pos += 8;
    if (digest !== crc32(out, memberStart, size) || length !== (size - memberStart) >>> 0) throw new GzipError('gzip: invalid checksum');
    if (!readHeader()) break;
  }
  return out.slice(0, size);
}

/** A gzip member of `data` as Go's gzip.Writer frames it, with stored deflate blocks (see above). */
export function gzipStored(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = new Uint8Array(10 + data.length + blocks * 5 + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
  let o = 10;
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * 65535, Math.min(data.length, (b + 1) * 65535));
    const n = chunk.length;
    out[o++] = b === blocks - 1 ? 1 : 0;
    out[o++] = n & 0xff;
    out[o++] = n >>> 8;
    out[o++] = ~n & 0xff;
    out[o++] = (~n >>> 8) & 0xff;
    out.set(chunk, o);
    o += n;
  }
  const crc = crc32(data);
  const len = data.length >>> 0;
  out.set([crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24, len & 0xff, (len >>> 8) & 0xff, (len >>> 16) & 0xff, len >>> 24], o);
  return out;
}
