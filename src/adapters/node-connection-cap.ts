/**
 * AMENDER_MAX_CONNECTIONS, enforced so that connections held idle cannot lock out a new client. At the
 * cap, a new connection first closes the connection that has been idle longest, and is closed itself only
 * when none is idle. Idle means:
 *
 *   - a connection that has sent nothing yet (no TLS handshake begun; after a handshake, no request or
 *     HTTP/2 stream yet), once it has been open IDLE_GRACE_MS: a client that just connected is about to
 *     send its request;
 *   - an HTTP/1.1 keep-alive connection with no request in flight, and no byte received since its last
 *     answer (a request arriving is not idle): closed, as a keep-alive connection may be at any time (an
 *     HTTP client retries a request on a reused connection that closes without an answer);
 *   - an HTTP/2 session with no stream open: sent GOAWAY (a stream the client opened meanwhile is above
 *     its last-stream-id, never processed, and retried elsewhere), then closed.
 *
 * Without this, clients that open connections and hold them (a misbehaving client, the keep-alive
 * connections of many clusters' API servers) kept every new one out, a new API server's and a kubelet's
 * probe's alike. A connection with a request in flight, a request or TLS handshake arriving, is never
 * closed here: those are bounded by the header and request timeouts.
 *
 * Each accept costs O(1) (amortised): the idle connections wait in two insertion-ordered lists, those that
 * never sent anything by when they opened, the others by when they became idle, so the longest idle is the
 * first of one of them. A first entry found no longer idle (bytes arrived since) leaves its list for good,
 * until it is idle again. The lists are linked through the connections (src/adapters/linked-list.ts): a
 * connection goes in and out of one at every request, which a Map would pay for in old-generation tables.
 */
import type { ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { LinkedList, type Linked } from './linked-list.js';

/** How long a connection that has sent nothing is left be before it counts as idle. */
export const IDLE_GRACE_MS = 1000;

/** How long an evicted connection may take to close gracefully (GOAWAY written) before it is cut. */
const CLOSE_GRACE_MS = 1000;

/** One connection, from its TCP socket's accept to its close; linked into an idle list while it is idle. */
interface Connection extends Linked<Connection> {
  /** The TCP socket accepted. */
  readonly tcp: Socket;
  /** The socket requests are read from: the TCP socket, or the TLS socket once its handshake ended. */
  stream: Socket;
  /** Its HTTP/2 session, once it has one. */
  session?: ServerHttp2Session;
  /** Requests (HTTP/1.1) or streams (HTTP/2) open. */
  open: number;
  /** When it became idle (performance.now()), and `stream.bytesRead` then. */
  since: number;
  bytesRead: number;
  /** False once closed or evicted: it no longer counts against the cap. */
  counted: boolean;
}

/** A connection as the server's request handler holds it (opaque). */
export type CountedConnection = Connection;

const CONNECTION = Symbol('amender.connection');
type Tracked = Socket & { [CONNECTION]?: Connection };

export interface ConnectionCapOptions {
  maxConnections: number;
  /** A connection closed to make room for a new one. */
  onEvicted?: () => void;
  /** A new connection closed at once: the cap reached and none idle. */
  onRefused?: () => void;
  /** IDLE_GRACE_MS unless given (tests). */
  graceMs?: number;
}

export interface ConnectionCap {
  /** A TCP connection accepted (after Node's own 'connection' listeners); false when it was refused. */
  accepted(socket: Socket): boolean;
  /** The TLS handshake of a connection ended. */
  secured(tlsSocket: Socket, session: ServerHttp2Session | undefined): void;
  /**
   * An HTTP/1.1 request arrived on `socket` (TCP or TLS): its connection, to pass to `answered` when the
   * response closes (undefined for a socket not counted).
   */
  request(socket: Socket | null): CountedConnection | undefined;
  /** The response of a request `request` returned `connection` for has closed. */
  answered(connection: CountedConnection): void;
  /** Connections counted against the cap. */
  size(): number;
}

export function createConnectionCap(options: ConnectionCapOptions): ConnectionCap {
  const graceMs = options.graceMs ?? IDLE_GRACE_MS;
  let count = 0;
  /** Connections that have sent nothing (TCP, or since the TLS handshake), by when they opened. */
  const fresh = new LinkedList<Connection>();
  /** Connections idle after requests, by when they became idle. */
  const idle = new LinkedList<Connection>();

  const markIdle = (conn: Connection, list: LinkedList<Connection>) => {
    if (!conn.counted) return markBusy(conn);
    conn.since = performance.now();
    conn.bytesRead = conn.stream.bytesRead;
    list.append(conn);
  };
  const markBusy = (conn: Connection) => conn.list?.remove(conn);
  const uncount = (conn: Connection) => {
    if (!conn.counted) return;
    conn.counted = false;
    count--;
    markBusy(conn);
  };

  /** Still idle: nothing has arrived since it became idle (or, for HTTP/2, no stream is open). */
  const stillIdle = (conn: Connection): boolean => {
    if (conn.tcp.destroyed || conn.open > 0) return false;
    // An HTTP/2 client sends SETTINGS, PINGs and WINDOW_UPDATEs on a session with no stream: only a stream counts.
    if (conn.session) return !conn.session.destroyed && !conn.session.closed;
    return conn.stream.bytesRead === conn.bytesRead;
  };

  /** The first connection of `list` that is still idle (those that are not leave it). */
  const firstIdle = (list: LinkedList<Connection>): Connection | undefined => {
    for (let conn = list.first; conn; conn = list.first) {
      if (stillIdle(conn)) return conn;
      list.remove(conn);
    }
    return undefined;
  };

  const evict = (conn: Connection) => {
    uncount(conn);
    const { session, tcp } = conn;
    if (session && !session.destroyed) {
      // GOAWAY (NO_ERROR, last stream processed), then the connection ends once it is written.
      session.destroy();
    } else {
      conn.stream.destroy();
    }
    // A peer that reads nothing cannot keep it open: cut it if the graceful close has not ended it.
    const cut = setTimeout(() => tcp.destroy(), CLOSE_GRACE_MS);
    cut.unref();
    tcp.once('close', () => clearTimeout(cut));
  };

  /** Closes the connection idle longest; false when none is. */
  const evictIdlest = (): boolean => {
    const now = performance.now();
    const a = firstIdle(idle);
    let b = firstIdle(fresh);
    if (b && now - b.since < graceMs) b = undefined;
    const victim = a && b ? (a.since <= b.since ? a : b) : (a ?? b);
    if (!victim) return false;
    evict(victim);
    options.onEvicted?.();
    return true;
  };

  return {
    accepted(socket) {
      if (count >= options.maxConnections && !evictIdlest()) {
        options.onRefused?.();
        socket.destroy();
        return false;
      }
      const conn: Connection = { tcp: socket, stream: socket, open: 0, since: 0, bytesRead: 0, counted: true, previous: undefined, next: undefined, list: undefined };
      (socket as Tracked)[CONNECTION] = conn;
      count++;
      markIdle(conn, fresh);
      socket.once('close', () => uncount(conn));
      return true;
    },
    secured(tlsSocket, session) {
      // Node's TLSSocket keeps the TCP socket it wraps as `_parent`. Were it missing, the connection would
      // count as busy from its first byte on (never closed to make room), as every connection was before.
      const conn = (tlsSocket as unknown as { _parent?: Tracked })._parent?.[CONNECTION];
      if (!conn) return;
      conn.stream = tlsSocket;
      (tlsSocket as Tracked)[CONNECTION] = conn;
      if (session) {
        conn.session = session;
        session.on('stream', (stream: { once(event: 'close', listener: () => void): unknown }) => {
          conn.open++;
          markBusy(conn);
          stream.once('close', () => {
            if (--conn.open === 0 && conn.counted) markIdle(conn, idle);
          });
        });
      }
      // Idle since the handshake until its first request or stream, after the grace.
      markIdle(conn, fresh);
    },
    request(socket) {
      const conn = socket ? (socket as Tracked)[CONNECTION] : undefined;
      if (!conn) return undefined;
      conn.open++;
      markBusy(conn);
      return conn;
    },
    answered(conn) {
      if (--conn.open === 0 && conn.counted && !conn.stream.destroyed) markIdle(conn, idle);
    },
    size: () => count,
  };
}
