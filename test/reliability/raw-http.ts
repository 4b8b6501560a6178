/**
 * Raw HTTP/1.x over `node:net` for the edge tests: requests no HTTP client would send (a bad Host, `*`,
 * headers dripped a line at a time) and connections held open on purpose. Loopback only.
 */
import { connect, type Socket } from 'node:net';

/** A connection to 127.0.0.1:`port` and everything the server sent on it. */
export interface RawConnection {
  socket: Socket;
  /** The bytes received so far, as text. */
  received(): string;
  /** Settles once the server (or an error) closed the connection; `error` is the socket error's code. */
  closed: Promise<{ error?: string }>;
  isClosed(): boolean;
  /** Resolves once `text` (a substring) has been received; rejects when the connection closes first. */
  waitFor(text: string | RegExp, ms?: number): Promise<string>;
}

export function openRaw(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let done = false;
    const waiters = new Set<() => void>();
    const closed = new Promise<{ error?: string }>((settle) => {
      let error: string | undefined;
      socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
      socket.on('close', () => {
        done = true;
        settle(error === undefined ? {} : { error });
        for (const w of waiters) w();
      });
    });
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      for (const w of waiters) w();
    });
    const conn: RawConnection = {
      socket,
      received: () => data,
      closed,
      isClosed: () => done,
      waitFor: (text, ms = 10_000) =>
        new Promise((ok, fail) => {
          const found = () => (typeof text === 'string' ? data.includes(text) : text.test(data));
          const timer = setTimeout(() => finish(new Error(`not received within ${ms} ms: ${String(text)}; got ${JSON.stringify(data.slice(0, 300))}`)), ms);
          const check = () => {
            if (found()) finish();
            else if (done) finish(new Error(`the connection closed before ${String(text)} arrived; got ${JSON.stringify(data.slice(0, 300))}`));
          };
          const finish = (err?: Error) => {
            clearTimeout(timer);
            waiters.delete(check);
            if (err) fail(err);
            else ok(data);
          };
          waiters.add(check);
          check();
        }),
    };
    socket.once('connect', () => resolve(conn));
    socket.once('error', (err) => {
      if (!socket.connecting) return;
      reject(err);
    });
  });
}

/** One request written as given; resolves with the whole reply once the server closes the connection. */
export async function rawExchange(port: number, request: string | Buffer, ms = 10_000): Promise<string> {
  const conn = await openRaw(port);
  conn.socket.write(request);
  const timer = setTimeout(() => conn.socket.destroy(), ms);
  await conn.closed;
  clearTimeout(timer);
  return conn.received();
}

/**
 * One request written as given; resolves with the first response once it is whole (by its Content-Length,
 * its last chunk, or its head alone for `headOnly`), for servers that keep the connection open after it
 * (workerd does, Connection: close or not), or with what arrived when the server closes or `ms` passes.
 */
export async function rawReply(port: number, request: string | Buffer, { ms = 10_000, headOnly = false } = {}): Promise<string> {
  const conn = await openRaw(port);
  conn.socket.write(request);
  const whole = (data: string): boolean => {
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) return false;
    if (headOnly || /^HTTP\/1\.[01] (1\d\d|204|304)/.test(data)) return true;
    const length = headerOf(data, 'content-length');
    if (length !== undefined) return Buffer.byteLength(data.slice(end + 4), 'latin1') >= Number(length);
    if (headerOf(data, 'transfer-encoding') === 'chunked') return /(?:^|\r\n)0\r\n\r\n$/.test(data.slice(end + 4));
    return false; // read until the server closes
  };
  await new Promise<void>((done) => {
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      conn.socket.off('data', check);
      done();
    }
    function check(): void {
      if (whole(conn.received())) finish();
    }
    conn.socket.on('data', check);
    void conn.closed.then(finish);
    check();
  });
  conn.socket.destroy();
  return conn.received();
}

/** The status code of the first response in `reply` (0 when there is none). */
export function statusOf(reply: string): number {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(reply);
  return m ? Number(m[1]) : 0;
}

/** The value of header `name` in the first response's head, lower-cased (undefined when absent). */
export function headerOf(reply: string, name: string): string | undefined {
  const head = reply.split('\r\n\r\n')[0];
  const m = new RegExp(`^${name}: *(.*)$`, 'im').exec(head);
  return m ? m[1].trim().toLowerCase() : undefined;
}
