/**
 * A raw HTTP/2 client over TLS for the abuse tests: frames written as given (no client library would send
 * them), the server's frames counted, its GOAWAY code and the windows it opens kept. Loopback only.
 */
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const FLAG = { END_STREAM: 1, END_HEADERS: 4 } as const;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const DEFAULT_WINDOW = 65_535;

export function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK without Huffman or the dynamic table: a literal value for an indexed name, or a literal name. */
function literal(name: number | string, value: string): Buffer {
  const v = Buffer.from(value);
  if (typeof name === 'number') return Buffer.concat([Buffer.from([name, v.length]), v]);
  const n = Buffer.from(name);
  return Buffer.concat([Buffer.from([0x00, n.length]), n, Buffer.from([v.length]), v]);
}

/** A request's header block: :method GET or POST, :scheme https, :path, :authority localhost, and `extra`. */
export function headerBlock(method: 'GET' | 'POST', path: string, extra: [string, string][] = []): Buffer {
  return Buffer.concat([Buffer.from([method === 'POST' ? 0x83 : 0x82, 0x87]), literal(0x04, path), literal(0x01, 'localhost'), ...extra.map(([n, v]) => literal(n, v))]);
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
export const rstStream = (stream: number, code = 0x8) => frame(FRAME.RST_STREAM, 0, stream, u32(code));
export const windowUpdate = (stream: number, increment: number) => frame(FRAME.WINDOW_UPDATE, 0, stream, u32(increment));
export const settingsFrame = (pairs: [number, number][]) => frame(FRAME.SETTINGS, 0, 0, Buffer.concat(pairs.map(([id, v]) => Buffer.concat([Buffer.from([id >> 8, id & 0xff]), u32(v)]))));
export const pingFrame = (n: number) => frame(FRAME.PING, 0, 0, Buffer.concat([u32(0), u32(n)]));

export interface RawH2 {
  socket: TLSSocket;
  /** The server's frames by type. */
  received: Map<number, number>;
  /** The error code of the server's GOAWAY, once one came. */
  goaway(): number | undefined;
  isClosed(): boolean;
  closed: Promise<void>;
  /** What the server's windows allow to send now: the connection's and `stream`'s. */
  window(stream: number): number;
  /** Counts `bytes` of DATA sent on `stream` against the windows. */
  sent(stream: number, bytes: number): void;
  /** Writes frames made by `make(i)` for i < `count`, in batches, waiting when the socket is full; stops at `ms` or when closed. Returns how many. */
  pump(make: (i: number) => Buffer | undefined, count: number, ms: number): Promise<number>;
}

export function openRawH2(port: number): Promise<RawH2> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    const received = new Map<number, number>();
    let goaway: number | undefined;
    let done = false;
    let pending = Buffer.alloc(0);
    let connectionWindow = DEFAULT_WINDOW;
    const streamWindows = new Map<number, number>();
    const closed = new Promise<void>((settle) => socket.once('close', () => settle()));
    void closed.then(() => (done = true));
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const type = pending[3];
        const stream = pending.readUInt32BE(5) & 0x7fffffff;
        received.set(type, (received.get(type) ?? 0) + 1);
        if (type === FRAME.GOAWAY) goaway = pending.readUInt32BE(13);
        if (type === FRAME.WINDOW_UPDATE) {
          const increment = pending.readUInt32BE(9) & 0x7fffffff;
          if (stream === 0) connectionWindow += increment;
          else streamWindows.set(stream, (streamWindows.get(stream) ?? DEFAULT_WINDOW) + increment);
        }
        pending = pending.subarray(9 + length);
      }
    });
    const h2: RawH2 = {
      socket,
      received,
      goaway: () => goaway,
      isClosed: () => done,
      closed,
      window: (stream) => Math.min(connectionWindow, streamWindows.get(stream) ?? DEFAULT_WINDOW),
      sent: (stream, bytes) => {
        connectionWindow -= bytes;
        streamWindows.set(stream, (streamWindows.get(stream) ?? DEFAULT_WINDOW) - bytes);
      },
      async pump(make, count, ms) {
        const end = performance.now() + ms;
        let i = 0;
        while (i < count && performance.now() < end && !done) {
          const batch: Buffer[] = [];
          for (let k = 0; k < 256 && i < count; k++, i++) {
            const f = make(i);
            if (f) batch.push(f);
          }
          if (batch.length === 0) {
            await new Promise((r) => setTimeout(r, 5)); // waiting for a window
            continue;
          }
          if (!socket.write(Buffer.concat(batch))) {
            await new Promise<void>((r) => {
              const finish = () => {
                clearTimeout(timer);
                socket.off('drain', finish);
                r();
              };
              const timer = setTimeout(finish, 200);
              socket.once('drain', finish);
            });
          }
        }
        return i;
      },
    };
    socket.once('secureConnect', () => {
      socket.write(Buffer.concat([PREFACE, settingsFrame([])]));
      resolve(h2);
    });
    socket.once('error', reject);
  });
}
