/**
 * Real HTTP/2 conversations damaged frame by frame, sent over TLS on loopback, and the server's frames read
 * back, for the HTTP/2 sweep (fuzz-http2.test.ts). A conversation is the client preface, SETTINGS, then
 * frames; damage edits the frames (header fields, flags, stream ids, lengths, HPACK bytes, frames dropped,
 * repeated or inserted) and sometimes the bytes after the SETTINGS. The SETTINGS keep the server's
 * encoder from a dynamic table, so every response's status can be read (helpers/hpack.ts).
 */
import { connect as tlsConnect } from 'node:tls';
import { encodeFields, responseStatus } from './hpack.js';
import { inParallel } from './in-parallel.js';
import { Prng } from './prng.js';
import { REVIEW, SECRET } from './http-damage.js';

export const T = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const F = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
const MAX_FRAME = 16_384;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

type Field = [string, string];

/** A frame to send: a HEADERS frame's block is made from `fields` unless damage gave it raw `payload`. */
export interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload?: Buffer;
  fields?: Field[];
  /** A HEADERS frame's block sent in this many CONTINUATION frames after it. */
  continuations?: number;
  /** Padding bytes, sent as such when the PADDED flag is set. */
  pad?: number;
  /** A stream dependency and weight, sent when the PRIORITY flag is set. */
  priority?: Buffer;
  /** What the length field says beyond the payload's real length (a lie when not 0). */
  lengthDelta?: number;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const settingsPayload = (pairs: [number, number][]) => Buffer.concat(pairs.map(([id, v]) => Buffer.concat([Buffer.from([id >> 8, id & 0xff]), u32(v)])));

function frameBytes(type: number, flags: number, stream: number, payload: Buffer, lengthDelta = 0): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(Math.max(0, Math.min(2 ** 24 - 1, payload.length + lengthDelta)), 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream >>> 0, 5);
  return Buffer.concat([head, payload]);
}

/** The frame's bytes: a HEADERS block encoded and split into CONTINUATIONs, padding and priority added as flagged. */
function serialize(f: Frame): Buffer {
  let body = f.payload ?? (f.fields ? encodeFields(f.fields) : Buffer.alloc(0));
  if (f.type === T.HEADERS && f.continuations && body.length > f.continuations) {
    const size = Math.ceil(body.length / (f.continuations + 1));
    const pieces: Buffer[] = [];
    for (let at = 0; at < body.length; at += size) pieces.push(body.subarray(at, at + size));
    const last = pieces.length - 1;
    const endHeaders = f.flags & F.END_HEADERS;
    return Buffer.concat([
      serialize({ ...f, flags: f.flags & ~F.END_HEADERS, payload: pieces[0], fields: undefined, continuations: 0 }),
      ...pieces.slice(1).map((piece, i) => frameBytes(T.CONTINUATION, i + 1 === last ? endHeaders : 0, f.stream, piece)),
    ]);
  }
  if (f.flags & F.PRIORITY && f.type === T.HEADERS && f.priority) body = Buffer.concat([f.priority, body]);
  if (f.flags & F.PADDED && f.pad !== undefined) body = Buffer.concat([Buffer.from([f.pad]), body, Buffer.alloc(f.pad)]);
  return frameBytes(f.type, f.flags, f.stream, body, f.lengthDelta);
}

/** The preface and the client's SETTINGS: no dynamic table for the server's encoder, no server push. */
const OPENING = Buffer.concat([PREFACE, frameBytes(T.SETTINGS, 0, 0, settingsPayload([[0x1, 0], [0x2, 0]]))]);

const reviewFields = (path: string, withLength = true): Field[] => [
  [':method', 'POST'],
  [':scheme', 'https'],
  [':path', path],
  [':authority', 'localhost'],
  ['content-type', 'application/json'],
  ...(withLength ? [['content-length', String(REVIEW.length)] as Field] : []),
];
const getFields = (path: string): Field[] => [[':method', 'GET'], [':scheme', 'https'], [':path', path], [':authority', 'localhost']];

/** The review in `pieces` DATA frames on `stream`, the last ending the stream unless `end` is false. */
function bodyFrames(stream: number, pieces: number, end = true): Frame[] {
  const size = Math.ceil(REVIEW.length / pieces);
  const frames: Frame[] = [];
  for (let at = 0; at < REVIEW.length; at += size) frames.push({ type: T.DATA, flags: 0, stream, payload: Buffer.from(REVIEW.slice(at, at + size)) });
  if (end) frames[frames.length - 1].flags = F.END_STREAM;
  return frames;
}

const review = (stream: number, path = '/mutate', pieces = 1): Frame[] => [{ type: T.HEADERS, flags: F.END_HEADERS, stream, fields: reviewFields(path) }, ...bodyFrames(stream, pieces)];
const get = (stream: number, path: string): Frame => ({ type: T.HEADERS, flags: F.END_HEADERS | F.END_STREAM, stream, fields: getFields(path) });

/** Conversations as a client such as the API server or a probe has them. */
const BASE_CONVERSATIONS: (() => Frame[])[] = [
  () => review(1),
  () => review(1, '/mutate', 3),
  () => review(1, `/clusters/alpha/${SECRET}/mutate`, 2),
  () => [{ type: T.HEADERS, flags: F.END_HEADERS, stream: 1, fields: reviewFields('/mutate', false) }, ...bodyFrames(1, 2)],
  () => [get(1, '/healthz')],
  () => [get(1, '/readyz'), get(3, '/metrics')],
  () => [{ type: T.HEADERS, flags: F.END_HEADERS, stream: 1, fields: reviewFields('/mutate?timeout=5s') }, get(3, '/healthz'), ...bodyFrames(1, 2)],
  () => [{ type: T.HEADERS, flags: F.END_HEADERS, stream: 1, fields: reviewFields('/mutate'), continuations: 2 }, ...bodyFrames(1, 1)],
  () => [{ type: T.HEADERS, flags: F.END_HEADERS, stream: 1, fields: reviewFields('/mutate') }, ...bodyFrames(1, 1, false), { type: T.HEADERS, flags: F.END_HEADERS | F.END_STREAM, stream: 1, fields: [['x-trailer', '1']] }],
  () => [
    { type: T.HEADERS, flags: F.END_HEADERS | F.PRIORITY, stream: 1, fields: reviewFields('/mutate'), priority: Buffer.from([0, 0, 0, 0, 15]) },
    ...bodyFrames(1, 2).map((f) => ({ ...f, flags: f.flags | F.PADDED, pad: 7 })),
  ],
  () => [...review(1), ...review(3), ...review(5, '/mutate', 2)],
];

const ODD_METHODS = ['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE', 'post', 'P\u0000ST', 'P T', '', 'X'.repeat(300)];
const ODD_PATHS = ['/mutate/', '//mutate', '/MUTATE', '/healthz', '/metrics', '/', '*', '', 'mutate', 'http://localhost/mutate', '/mutate#x', '/mu tate', '/mutate\r\n', '/mutate?x=\u00ff', '/%2e%2e/mutate', `/clusters/beta/${SECRET}/mutate`, '/clusters/alpha/x/mutate', `/${'a'.repeat(70_000)}`];
const ODD_AUTHORITIES = ['', 'x:99999', '[::1', 'a b', 'localhost:0', 'user@localhost', 'localhost\u0000', '\u00e9', 'x'.repeat(300)];
const ODD_SCHEMES = ['http', 'ftp', '', 'HTTPS'];
const ODD_LENGTHS = ['', ' ', '-1', '0', '+5', '1e3', '0x10', '99999999999999999999', `${REVIEW.length + 1}`, `${REVIEW.length - 1}`, '5, 5'];
const ODD_VALUES: [string, readonly string[]][] = [[':method', ODD_METHODS], [':path', ODD_PATHS], [':authority', ODD_AUTHORITIES], [':scheme', ODD_SCHEMES], ['content-length', ODD_LENGTHS]];
const ODD_FIELDS: Field[] = [
  ['connection', 'close'], ['transfer-encoding', 'chunked'], ['keep-alive', '1'], ['upgrade', 'h2c'], ['proxy-connection', 'x'],
  ['te', 'gzip'], ['te', 'trailers'], ['host', 'other'], ['content-type', 'text/plain'], ['content-encoding', 'gzip'],
  ['authorization', 'Bearer x'], ['__proto__', 'x'], ['constructor', '1'], ['x-odd', 'a\r\nb'], ['x-odd', '\u0000'],
  ['x-odd', ' padded '], ['x-big', 'x'.repeat(20_000)], ['x-huge', 'y'.repeat(70_000)], [':protocol', 'websocket'],
  [':status', '200'], [':unknown', 'x'], ['Content-Type', 'application/json'], ['', 'x'], ['bad name', 'x'], ['x\u00ff', 'y'],
  ['cookie', 'a=b'], ['expect', '100-continue'], ['accept-encoding', 'gzip'],
];

/** HPACK bytes no encoder writes: a table size past the SETTINGS, index 0, an index no table has, bad Huffman, a length past the block, an endless integer. */
const ODD_HPACK = [
  Buffer.from([0x3f, 0xe1, 0x1f]),
  Buffer.from([0x80]),
  Buffer.from([0xc6]),
  Buffer.from([0xff, 0x80, 0x01]),
  Buffer.from([0x00, 0x81, 0xff, 0x01, 0x61]),
  Buffer.from([0x00, 0x7f, 0x80, 0x01, 0x61]),
  Buffer.from([0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
  Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62]), // literal with incremental indexing: allowed
  Buffer.from([0x20]), // a table size update to 0: allowed at the start of a block only
];

/** Frames a client should not send, or may but rarely does. */
const ODD_FRAMES: (() => Frame)[] = [
  () => ({ type: T.PRIORITY, flags: 0, stream: 1, payload: Buffer.from([0, 0, 0, 1, 16]) }),
  () => ({ type: T.PRIORITY, flags: 0, stream: 3, payload: Buffer.from([0, 0, 0, 1, 16]) }),
  () => ({ type: T.PRIORITY, flags: 0, stream: 1, payload: Buffer.from([0, 0, 0, 0]) }),
  () => ({ type: T.RST_STREAM, flags: 0, stream: 1, payload: u32(8) }),
  () => ({ type: T.RST_STREAM, flags: 0, stream: 0, payload: u32(8) }),
  () => ({ type: T.RST_STREAM, flags: 0, stream: 7, payload: u32(0) }),
  () => ({ type: T.WINDOW_UPDATE, flags: 0, stream: 0, payload: u32(0) }),
  () => ({ type: T.WINDOW_UPDATE, flags: 0, stream: 1, payload: u32(0) }),
  () => ({ type: T.WINDOW_UPDATE, flags: 0, stream: 0, payload: u32(0x7fffffff) }),
  () => ({ type: T.WINDOW_UPDATE, flags: 0, stream: 1, payload: u32(1000) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0x4, 0x80000000]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0x4, 0]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0x5, 0]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0x5, 2 ** 24]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0x2, 2]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: settingsPayload([[0xff, 1], [0x3, 0]]) }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 0, payload: Buffer.from([0, 4, 0]) }),
  () => ({ type: T.SETTINGS, flags: F.ACK, stream: 0, payload: Buffer.alloc(6) }),
  () => ({ type: T.SETTINGS, flags: F.ACK, stream: 0 }),
  () => ({ type: T.SETTINGS, flags: 0, stream: 1 }),
  () => ({ type: T.PING, flags: 0, stream: 0, payload: Buffer.alloc(7) }),
  () => ({ type: T.PING, flags: F.ACK, stream: 0, payload: Buffer.alloc(8) }),
  () => ({ type: T.PING, flags: 0, stream: 1, payload: Buffer.alloc(8) }),
  () => ({ type: T.GOAWAY, flags: 0, stream: 0, payload: Buffer.concat([u32(0), u32(0)]) }),
  () => ({ type: T.GOAWAY, flags: 0, stream: 0, payload: Buffer.concat([u32(1), u32(2), Buffer.from('debug')]) }),
  () => ({ type: T.PUSH_PROMISE, flags: F.END_HEADERS, stream: 1, payload: Buffer.concat([u32(2), encodeFields(getFields('/healthz'))]) }),
  () => ({ type: 0xfa, flags: 0xff, stream: 1, payload: Buffer.from('unknown frame types are ignored') }),
  () => ({ type: T.DATA, flags: F.END_STREAM, stream: 0, payload: Buffer.from('{}') }),
  () => ({ type: T.DATA, flags: F.END_STREAM, stream: 9, payload: Buffer.from('{}') }),
  () => ({ type: T.DATA, flags: 0, stream: 1, payload: Buffer.alloc(MAX_FRAME + 1, 0x20) }),
  () => ({ type: T.DATA, flags: 0, stream: 1, payload: Buffer.alloc(40_000, 0x20) }),
  () => ({ type: T.HEADERS, flags: F.END_HEADERS | F.END_STREAM, stream: 2, fields: getFields('/healthz') }),
  () => ({ type: T.HEADERS, flags: 0, stream: 11, fields: getFields('/healthz') }),
  () => ({ type: T.CONTINUATION, flags: F.END_HEADERS, stream: 1, fields: [['x-a', 'b']] }),
  () => ({ type: T.CONTINUATION, flags: F.END_HEADERS, stream: 1, payload: encodeFields([['x-a', 'b']]) }),
];

/** A random HEADERS frame with fields, if the conversation still has one. */
function headersFrame(rng: Prng, frames: Frame[]): Frame | undefined {
  const candidates = frames.filter((f) => f.type === T.HEADERS && f.fields);
  return candidates.length ? rng.pick(candidates) : undefined;
}

/** One change to a header block's fields; most often a pseudo-header's or the length's value, which the app reads. */
function damageFields(rng: Prng, fields: Field[]): void {
  const i = rng.int(fields.length);
  switch (rng.pick([0, 1, 2, 2, 2, 2, 3, 3, 4, 5])) {
    case 0:
      fields.splice(i, 1);
      break;
    case 1:
      fields.splice(i, 0, [...fields[i]]);
      break;
    case 2: {
      // a pseudo-header's or the length's value made odd
      const [name, odd] = rng.pick(ODD_VALUES);
      const at = fields.findIndex(([n]) => n === name);
      if (at >= 0) fields[at] = [name, rng.pick(odd)];
      else fields.splice(i, 0, [name, rng.pick(odd)]);
      break;
    }
    case 3:
      fields.splice(rng.int(fields.length + 1), 0, [...rng.pick(ODD_FIELDS)]);
      break;
    case 4:
      fields[i] = [fields[i][0].toUpperCase(), fields[i][1]];
      break;
    default: {
      // two fields swapped: a pseudo-header after a regular one
      const j = rng.int(fields.length);
      [fields[i], fields[j]] = [fields[j], fields[i]];
    }
  }
}

/**
 * `frames` damaged in one to three places. Most frame damage ends the connection, so two cases in five
 * change only header fields and bodies: what reaches the app.
 */
function damageFrames(rng: Prng, frames: Frame[]): Frame[] {
  const out: Frame[] = frames.map((f) => ({ ...f, fields: f.fields?.map((field) => [...field] as Field) }));
  const fieldsOnly = rng.chance(0.4);
  for (let n = 1 + rng.int(3); n > 0; n--) {
    if (out.length === 0) out.push(ODD_FRAMES[0]());
    const f = rng.pick(out);
    switch (fieldsOnly ? rng.pick([0, 1, 6]) : rng.int(9)) {
      case 0:
      case 1: {
        const h = headersFrame(rng, out);
        if (h?.fields?.length) damageFields(rng, h.fields);
        break;
      }
      case 2: // a flag turned on or off
        f.flags ^= rng.pick([F.END_STREAM, F.END_HEADERS, F.PADDED, F.PRIORITY]);
        break;
      case 3:
        f.stream = rng.pick([0, 2, 1, 3, 5, 0x7fffffff, f.stream + 2, Math.max(0, f.stream - 2)]);
        break;
      case 4: {
        // a frame dropped, repeated, or moved
        const i = out.indexOf(f);
        const what = rng.int(3);
        if (what === 0) out.splice(i, 1);
        else if (what === 1) out.splice(i, 0, { ...f });
        else out.splice(rng.int(out.length), 0, ...out.splice(i, 1));
        break;
      }
      case 5:
        out.splice(rng.int(out.length + 1), 0, rng.pick(ODD_FRAMES)());
        break;
      case 6: {
        // a body changed: cut, grown, emptied, doubled, or a byte changed
        const data = out.filter((d) => d.type === T.DATA && d.payload);
        if (data.length === 0) break;
        const d = rng.pick(data);
        const p = d.payload!;
        d.payload = rng.pick([p.subarray(0, rng.int(p.length)), Buffer.concat([p, Buffer.from(' ]')]), Buffer.alloc(0), Buffer.concat([p, p]), Buffer.from(p).fill(rng.pick([0x00, 0x7b, 0xff]), rng.int(p.length), undefined)]);
        break;
      }
      case 7: {
        // HPACK bytes no encoder writes, at a field's start
        const h = headersFrame(rng, out);
        if (!h?.fields) break;
        const at = rng.int(h.fields.length + 1);
        h.payload = Buffer.concat([encodeFields(h.fields.slice(0, at)), rng.pick(ODD_HPACK), encodeFields(h.fields.slice(at))]);
        h.fields = undefined;
        break;
      }
      default: // a length field that lies, or a padding length past the frame
        if (rng.chance(0.5)) f.lengthDelta = rng.pick([-1, 1, -9, 100, 2 ** 24]);
        else {
          f.flags |= F.PADDED;
          f.pad = rng.pick([0, 255]);
          if (f.pad === 255) f.payload = (f.payload ?? Buffer.alloc(0)).subarray(0, 10);
        }
    }
  }
  return out;
}

/** The opening and `frames`, as they are. */
export function undamagedBytes(frames: readonly Frame[]): Buffer {
  return Buffer.concat([OPENING, ...frames.map(serialize)]);
}

/** A conversation's bytes, and what was done to them on the wire (empty when nothing). */
export interface Wire {
  bytes: Buffer;
  damage: string;
}

/** The bytes after the opening, damaged on the wire once in a while: cut, a bit flipped, bytes inserted or repeated. */
function conversationBytes(rng: Prng, frames: readonly Frame[]): Wire {
  const bytes = Buffer.concat(frames.map(serialize));
  if (!rng.chance(0.2)) return { bytes: undamagedBytes(frames), damage: '' };
  const at = rng.int(bytes.length);
  switch (rng.int(4)) {
    case 0:
      return { bytes: Buffer.concat([OPENING, bytes.subarray(0, at)]), damage: `cut after byte ${at} of ${bytes.length}` };
    case 1: {
      const changed = Buffer.from(bytes);
      const bit = rng.int(8);
      changed[at] ^= 1 << bit;
      return { bytes: Buffer.concat([OPENING, changed]), damage: `bit ${bit} of byte ${at} flipped` };
    }
    case 2: {
      const inserted = rng.pick(['\0', '\r\n', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', '\xff\xff\xff\xff']);
      return { bytes: Buffer.concat([OPENING, bytes.subarray(0, at), Buffer.from(inserted, 'latin1'), bytes.subarray(at)]), damage: `${JSON.stringify(inserted)} inserted at byte ${at}` };
    }
    default: {
      const piece = bytes.subarray(at, at + 1 + rng.int(40));
      return { bytes: Buffer.concat([OPENING, bytes.subarray(0, at), piece, bytes.subarray(at)]), damage: `bytes ${at} to ${at + piece.length} repeated` };
    }
  }
}

/** What came back on one connection. */
export interface H2Exchange {
  /** The status of each response, in the order the responses came. */
  statuses: number[];
  resets: number;
  /** The error code of the server's GOAWAY, if one came. */
  goaway?: number;
  /** Why the server's frames are not what it may send, if they are not. */
  malformed?: string;
  /** Every stream the client opened was answered, reset or left out by a GOAWAY, or the connection closed, in time. */
  settled: boolean;
  /** The connection ended once the client had closed its side, in time. */
  closedWithin: boolean;
}

/** How long a connection may go on after the client has sent everything, and after it has left. */
export interface Waits {
  settleMs: number;
  closeMs: number;
}

/** How a sweep waits, and how many connections it has in flight at once. */
export interface SweepPace extends Waits {
  concurrency: number;
}

/** Reads the server's frames as they come, checking each one's shape and every response's status. */
class ServerFrames {
  statuses: number[] = [];
  resets = 0;
  goaway?: number;
  goawayLast = Infinity;
  malformed?: string;
  private pending = Buffer.alloc(0);
  private headerBlock?: { stream: number; parts: Buffer[]; endStream: boolean };
  private readonly answered = new Set<number>();
  private readonly finished = new Set<number>();

  read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (!this.malformed && this.pending.length >= 9) {
      const length = this.pending.readUIntBE(0, 3);
      if (length > MAX_FRAME) return this.fail(`a frame of ${length} bytes, past SETTINGS_MAX_FRAME_SIZE`);
      if (this.pending.length < 9 + length) return;
      const type = this.pending[3];
      const flags = this.pending[4];
      const stream = this.pending.readUInt32BE(5) & 0x7fffffff;
      const payload = this.pending.subarray(9, 9 + length);
      this.pending = this.pending.subarray(9 + length);
      this.frame(type, flags, stream, payload);
    }
  }

  /** Every stream of `streams` is done: answered to its end, reset, or beyond the GOAWAY's last stream. */
  settledFor(streams: ReadonlySet<number>): boolean {
    for (const s of streams) if (!this.finished.has(s) && s <= this.goawayLast) return false;
    return true;
  }

  private fail(why: string): void {
    this.malformed ??= why;
  }

  private frame(type: number, flags: number, stream: number, payload: Buffer): void {
    if (this.headerBlock && type !== T.CONTINUATION) return this.fail(`a frame of type ${type} inside a header block`);
    const fixed: Record<number, number> = { [T.PRIORITY]: 5, [T.RST_STREAM]: 4, [T.PING]: 8, [T.WINDOW_UPDATE]: 4 };
    if (Object.hasOwn(fixed, type) && payload.length !== fixed[type]) return this.fail(`a frame of type ${type} with ${payload.length} bytes`);
    switch (type) {
      case T.HEADERS: {
        let block = payload;
        if (flags & F.PADDED) block = block.subarray(1, block.length - payload[0]);
        if (flags & F.PRIORITY) block = block.subarray(5);
        this.headerBlock = { stream, parts: [block], endStream: (flags & F.END_STREAM) !== 0 };
        if (flags & F.END_HEADERS) this.endHeaders();
        break;
      }
      case T.CONTINUATION:
        if (!this.headerBlock || this.headerBlock.stream !== stream) return this.fail('a CONTINUATION without its HEADERS');
        this.headerBlock.parts.push(payload);
        if (flags & F.END_HEADERS) this.endHeaders();
        break;
      case T.DATA:
        if (!this.answered.has(stream)) return this.fail(`DATA on stream ${stream} before its response's HEADERS`);
        if (flags & F.END_STREAM) this.finished.add(stream);
        break;
      case T.RST_STREAM:
        this.resets++;
        this.finished.add(stream);
        break;
      case T.GOAWAY:
        if (payload.length < 8) return this.fail('a GOAWAY shorter than 8 bytes');
        this.goawayLast = Math.min(this.goawayLast, payload.readUInt32BE(0) & 0x7fffffff);
        this.goaway = payload.readUInt32BE(4);
        break;
      case T.SETTINGS:
        if (payload.length % 6 !== 0 || (flags & F.ACK && payload.length > 0)) return this.fail(`a SETTINGS frame of ${payload.length} bytes`);
        break;
      case T.PING:
      case T.WINDOW_UPDATE:
      case T.PRIORITY:
        break;
      default:
        return this.fail(`a frame of type ${type} from the server`);
    }
  }

  private endHeaders(): void {
    const { stream, parts, endStream } = this.headerBlock!;
    this.headerBlock = undefined;
    if (endStream) this.finished.add(stream);
    if (this.answered.has(stream)) return; // trailers
    this.answered.add(stream);
    try {
      this.statuses.push(responseStatus(Buffer.concat(parts)));
    } catch (err) {
      this.fail(`a response header block that cannot be read: ${(err as Error).message}`);
    }
  }
}

/** The streams the client opens: the odd ones of its HEADERS frames. */
export function openedStreams(frames: readonly Frame[]): Set<number> {
  return new Set(frames.filter((f) => f.type === T.HEADERS && f.stream % 2 === 1).map((f) => f.stream));
}

/**
 * Sends `bytes` on a new TLS connection (ALPN h2) to 127.0.0.1:`port` and reads until every stream of
 * `streams` is settled (or the connection closed), then closes the client's side and waits for the close.
 */
export function exchangeH2(port: number, bytes: Buffer, streams: ReadonlySet<number>, waits: Waits): Promise<H2Exchange> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    const server = new ServerFrames();
    let closed = false;
    let settled = false;
    let leaving = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (closedWithin: boolean) => {
      timers.forEach(clearTimeout);
      socket.destroy();
      const { statuses, resets, goaway, malformed } = server;
      resolve({ statuses, resets, ...(goaway === undefined ? {} : { goaway }), ...(malformed ? { malformed } : {}), settled, closedWithin });
    };
    const leave = () => {
      if (leaving) return;
      leaving = true;
      if (closed) return finish(true);
      socket.end();
      timers.push(setTimeout(() => finish(false), waits.closeMs));
    };
    let quiet: NodeJS.Timeout | undefined;
    const check = () => {
      if (leaving || !server.settledFor(streams)) return;
      settled = true;
      clearTimeout(quiet);
      quiet = setTimeout(leave, 20); // a GOAWAY or the close may follow the last answer
      timers.push(quiet);
    };
    socket.on('error', () => {}); // a reset is an answer too
    socket.on('data', (d: Buffer) => {
      server.read(d);
      check();
    });
    socket.once('close', () => {
      closed = true;
      if (leaving) return finish(true);
      settled = true; // closed by the server before the client left: nothing is held
      leave();
    });
    timers.push(setTimeout(leave, waits.settleMs));
    socket.once('secureConnect', () => {
      socket.write(bytes);
      check();
    });
  });
}

export interface H2SweepResult {
  counts: { ok: number; clientError: number; reset: number; goaway: number; closedSilently: number };
  /** The cases whose answer breaks the rules (at most five), each with its frames. */
  broken: string[];
}

/** A case's frames for a failure report: types, flags, streams, and the header fields. */
function describeFrames(frames: readonly Frame[]): string {
  return frames
    .map((f) => `${f.type}/${f.flags}/${f.stream}${f.fields ? ` ${JSON.stringify(f.fields).slice(0, 300)}` : f.payload ? ` (${f.payload.length} bytes)` : ''}${f.lengthDelta ? ` length${f.lengthDelta > 0 ? '+' : ''}${f.lengthDelta}` : ''}`)
    .join('; ');
}

/**
 * `cases` damaged conversations of `seed` against 127.0.0.1:`port`, `pace.concurrency` at a time: every frame the
 * server sends well-formed, every response's status below 500, every stream answered, reset or given up by
 * a GOAWAY (or the connection closed) within `pace.settleMs`, and the connection closed within
 * `pace.closeMs` once the client has left.
 */
export async function sweepH2(port: number, seed: number, cases: number, pace: SweepPace): Promise<H2SweepResult> {
  const rng = new Prng(seed);
  const conversations = Array.from({ length: cases }, () => {
    const frames = damageFrames(rng, rng.pick(BASE_CONVERSATIONS)());
    return { frames, wire: conversationBytes(rng, frames) };
  });
  const counts = { ok: 0, clientError: 0, reset: 0, goaway: 0, closedSilently: 0 };
  const broken: string[] = [];
  await inParallel(conversations, pace.concurrency, async ({ frames, wire }, i) => {
    const reply = await exchangeH2(port, wire.bytes, openedStreams(frames), pace);
    const where = `seed ${seed} case ${i}: ${describeFrames(frames)}${wire.damage ? `; on the wire: ${wire.damage}` : ''}`;
    if (reply.malformed) broken.push(`${where}\n  → ${reply.malformed}`);
    else if (!reply.settled) broken.push(`${where}\n  → streams neither answered nor reset, the connection still open, ${pace.settleMs} ms after the client had sent everything`);
    else if (!reply.closedWithin) broken.push(`${where}\n  → the connection still open ${pace.closeMs} ms after the client had left`);
    else if (reply.statuses.some((s) => s >= 500)) broken.push(`${where}\n  → statuses ${reply.statuses.join(', ')}`);
    else {
      if (reply.statuses.some((s) => s < 300)) counts.ok++;
      if (reply.statuses.some((s) => s >= 400)) counts.clientError++;
      if (reply.resets > 0) counts.reset++;
      if (reply.goaway !== undefined) counts.goaway++;
      if (reply.statuses.length === 0 && reply.resets === 0 && reply.goaway === undefined) counts.closedSilently++;
    }
  }, () => broken.length >= 5);
  return { counts, broken };
}
