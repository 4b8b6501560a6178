/**
 * The graceful stop of the Node server, as an API server needs it. An API server does not retry a POST
 * whose connection was reset, so a request that reached us is always answered:
 *
 *   - every HTTP/1.1 response not yet started carries `Connection: close` (Node closes the connection
 *     after it), including requests that arrive on a keep-alive connection during the drain, unless
 *     the client pipelined requests after it on the same connection: the last of them carries it, so
 *     that none is cut. The listener asks `closesAfter(request)` when it writes a response's head
 *     (node-listener.ts); each connection counts the requests it carried, and each request knows its
 *     place, in fields of their own. Responses are not kept in a Set here: one that gained and lost a
 *     response per request kept whole requests alive through V8's young-generation collections until a
 *     full one (under load, 3.5 MB kept per scavenge against 0.12 MB without; bench/JOURNAL.md, "What
 *     stop 25 did");
 *   - every HTTP/2 session is sent GOAWAY: its streams in flight finish, the client opens new ones
 *     elsewhere (a stream past the GOAWAY was never processed, which HTTP/2 clients retry);
 *   - idle keep-alive connections (and connections that never sent a request, or are still in their TLS
 *     handshake) are closed only when
 *     nothing is in flight and no request has arrived for a quiet time, so a request a client sent just
 *     before the drain is read and answered first; so are HTTP/2 connections, sent GOAWAY at the start:
 *     a session that closed gracefully waits for its client to end the connection, which a client that
 *     does not read never does;
 *   - after the shutdown timeout, whatever is left is cut.
 */
import type { ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { holderOf, LinkedList, type Holder } from './linked-list.js';

export interface DrainOptions {
  shutdownTimeoutMs: number;
  /** Requests being handled right now. */
  inFlight: () => number;
}

/** The part of the server the drain acts on (http.Server and Http2SecureServer with allowHTTP1). */
export interface DrainableServer {
  /** Destroys HTTP/1.1 connections with no request (missing on an HTTP/2 server of an early Node 20). */
  closeIdleConnections?(): void;
  once(event: 'close', listener: () => void): unknown;
}

export interface Drain {
  /** A new TCP connection (cut after the shutdown timeout if still open). */
  addSocket(socket: Socket): void;
  /**
   * A connection that will speak HTTP/1.1 (the TCP socket, or the TLS socket once ALPN chose HTTP/1.1):
   * closed at the quiet time if it never carried a request (Node's closeIdleConnections skips those).
   */
  addHttp1Connection(socket: Socket): void;
  /**
   * A TCP connection of a TLS server, before its handshake: closed at the quiet time if the handshake has
   * not ended by then (no request can be on it; a client stalled there held the exit for the handshake timeout).
   */
  addHandshake(socket: Socket): void;
  /** The TLS socket whose handshake ended (its TCP connection is found by its peer's address and port). */
  handshakeDone(socket: Socket): void;
  /** A new HTTP/2 session (sent GOAWAY when the drain starts, at once if it has started). */
  addSession(session: ServerHttp2Session): void;
  /**
   * The TLS socket of an HTTP/2 session: closed at the quiet time once the session, sent GOAWAY at the
   * start, has ended (everything it wrote handed to the network); Node then waits for the client to close.
   */
  addHttp2Connection(socket: Socket, session: ServerHttp2Session): void;
  /** An HTTP/1.1 request arrived on its connection: that is no longer one that never carried a request. */
  requestOn(request: Http1Request): void;
  /** Whether the answer to this HTTP/1.1 request is to carry `Connection: close`. */
  closesAfter(request: Http1Request): boolean;
  /** A request arrived or ended: the quiet time before closing idle connections starts again. */
  activity(): void;
  /** Starts the drain; `server` has stopped accepting. */
  start(server: DrainableServer): void;
  started(): boolean;
}

/** Longest quiet time before idle keep-alive connections are closed (a fraction of a shorter timeout). */
const MAX_QUIET_MS = 1000;

/** How many requests an HTTP/1.1 connection carried, and which of them a request was (from 1). */
const CARRIED = Symbol('amender.requestsCarried');
const PLACE = Symbol('amender.placeOnConnection');
/** A connection's entry in the list of those that never carried a request, while it is there. */
const UNUSED = Symbol('amender.unusedEntry');
type CountedSocket = Socket & { [CARRIED]?: number; [UNUSED]?: Holder<Socket> };

/** An HTTP/1.1 request as the drain sees it: its connection, and (once counted) its place on it. */
export interface Http1Request {
  readonly socket: Socket | null;
  [PLACE]?: number;
}

/** A connection's peer, the same on a TLS socket as on the TCP socket under it. */
function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

export function createDrain(options: DrainOptions): Drain {
  const quietMs = Math.max(10, Math.min(MAX_QUIET_MS, Math.floor(options.shutdownTimeoutMs / 4)));
  // Open sockets, and HTTP/1.1 connections that never carried a request: lists linked through entries of
  // their own, not Sets, which a connection enters and leaves (linked-list.ts says why).
  const sockets = new LinkedList<Holder<Socket>>();
  const sessions = new Set<ServerHttp2Session>();
  const unused = new LinkedList<Holder<Socket>>();
  const http2Connections = new Map<Socket, ServerHttp2Session>();
  const handshaking = new Map<string, Socket>();
  let started = false;
  let lastActivity = 0;

  return {
    addSocket(socket) {
      const entry = holderOf(socket);
      sockets.append(entry);
      socket.once('close', () => sockets.remove(entry));
    },
    addHttp1Connection(socket) {
      const entry = holderOf(socket);
      unused.append(entry);
      (socket as CountedSocket)[UNUSED] = entry;
      socket.once('close', () => unused.remove(entry));
    },
    addHandshake(socket) {
      const peer = peerOf(socket);
      handshaking.set(peer, socket);
      socket.once('close', () => handshaking.get(peer) === socket && handshaking.delete(peer));
    },
    handshakeDone(socket) {
      handshaking.delete(peerOf(socket));
    },
    addHttp2Connection(socket, session) {
      http2Connections.set(socket, session);
      socket.once('close', () => http2Connections.delete(socket));
    },
    addSession(session) {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
      if (started) session.close();
    },
    requestOn(request) {
      const socket = request.socket as CountedSocket;
      const entry = socket[UNUSED];
      if (entry) {
        unused.remove(entry);
        socket[UNUSED] = undefined;
      }
      request[PLACE] = socket[CARRIED] = (socket[CARRIED] ?? 0) + 1;
    },
    closesAfter(request) {
      // The last the connection carried so far: a client that pipelines after it sees the close first.
      return started && request[PLACE] === (request.socket as CountedSocket | null)?.[CARRIED];
    },
    activity() {
      if (started) lastActivity = performance.now();
    },
    started: () => started,
    start(server) {
      if (started) return;
      started = true;
      lastActivity = performance.now();
      for (const session of sessions) session.close();

      let quiet: ReturnType<typeof setTimeout> | undefined;
      const watchIdle = () => {
        quiet = setTimeout(() => {
          if (options.inFlight() === 0 && performance.now() - lastActivity >= quietMs) {
            server.closeIdleConnections?.();
            for (const { value: socket } of unused.items()) socket.destroy();
            for (const socket of handshaking.values()) socket.destroy();
            // Nothing in flight, and the session gone: nothing is left to answer or write on them.
            for (const [socket, session] of http2Connections) if (session.destroyed) socket.destroy();
          }
          watchIdle();
        }, quietMs);
        quiet.unref();
      };
      watchIdle();
      const cutoff = setTimeout(() => {
        for (const session of sessions) session.destroy();
        for (const { value: socket } of sockets.items()) socket.destroy();
      }, options.shutdownTimeoutMs);
      cutoff.unref();
      server.once('close', () => {
        clearTimeout(quiet);
        clearTimeout(cutoff);
      });
    },
  };
}
