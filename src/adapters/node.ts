/**
 * Runs a fetch handler (the Hono app) on Node: plain HTTP/1.1, or HTTPS with HTTP/2 and HTTP/1.1 offered
 * by ALPN when a certificate and key are given (the API server speaks either).
 *
 * The edges a shared service needs: a request whose Host or target cannot make a URL is a 400 (never a
 * 500 with a stack); headers must arrive within `headersTimeoutMs` and a whole request within
 * `requestTimeoutMs` (Node checks both on an interval derived from them, not its 30 s default); at most
 * `maxConnections` connections are held: one more closes the connection idle longest, or is closed as soon
 * as it opens when none is idle (node-connection-cap.ts); at most `maxRequests`
 * requests are in flight over all of them (an HTTP/2 connection carries many): one more ends the oldest
 * request whose body is slow to arrive (node-slow-requests.ts), or is answered 503 at once when none is;
 * probes (/healthz, /readyz) have PROBE_SLOTS more of their own.
 *
 * `close()` drains (see node-drain.ts): it stops accepting, answers every request in flight and every request
 * already sent on an open connection with `Connection: close` (HTTP/1.1) or after a GOAWAY (HTTP/2),
 * closes idle keep-alive connections once no request has come for a short quiet time, and cuts what is
 * left after the shutdown timeout.
 */
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Http2SecureServer, Http2ServerResponse, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import { createRequire } from 'node:module';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { statusBody } from '../server/index.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUESTS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS } from './node-defaults.js';
import { createConnectionCap } from './node-connection-cap.js';
import { createDrain, type DrainableServer, type Http1Request } from './node-drain.js';
import { withoutPathPrefix } from './base-path.js';
import { requestListener, type FetchHandler, type OutgoingResponse } from './node-listener.js';
import { SlowRequests } from './node-slow-requests.js';
import type { IncomingRequest } from './node-request.js';

export type { FetchHandler };

export interface TlsMaterial {
  cert: string | Buffer;
  key: string | Buffer;
}

/** A request refused before it reached the handler: its method, its request target as sent, and why. */
export interface BadRequest {
  method: string;
  target: string;
  message: string;
}

export interface NodeServerOptions {
  fetch: FetchHandler;
  port: number;
  /** Default: every address (`::` dual-stack where the host has IPv6, else `0.0.0.0`: Node's choice). */
  host?: string;
  tls?: TlsMaterial;
  /**
   * Longest time to receive a whole request, headers and body (HTTP/1.1: Node's requestTimeout, answered
   * 408; HTTP/2: the stream is reset).
   */
  requestTimeoutMs?: number;
  /**
   * Longest time to receive a request's headers (HTTP/1.1: Node's headersTimeout, answered 408), a TLS
   * handshake, and an HTTP/2 connection's first request. At most `requestTimeoutMs`.
   */
  headersTimeoutMs?: number;
  /**
   * A connection on which nothing is received or sent for this long is closed (default `requestTimeoutMs`):
   * a client that stopped reading an answer too large for the socket's buffers would otherwise hold the
   * connection, and the answer in memory, for as long as it likes. Keep it above the longest a review runs.
   */
  idleTimeoutMs?: number;
  /**
   * Connections held at once; one over the cap closes the connection idle longest, or is closed as soon as
   * it is accepted when none is idle (node-connection-cap.ts).
   */
  maxConnections?: number;
  /** How long `close()` waits for requests in flight before cutting connections. */
  shutdownTimeoutMs?: number;
  /** Called for an error the fetch handler did not turn into a response (it answers 500). */
  onError?: (err: unknown) => void;
  /** Called for a request answered 400 because its Host or target cannot make a URL. */
  onBadRequest?: (request: BadRequest) => void;
  /** Called when a connection is closed at once because `maxConnections` are open and none is idle. */
  onConnectionDropped?: () => void;
  /** Called when the connection idle longest is closed to make room for a new one (node-connection-cap.ts). */
  onConnectionEvicted?: () => void;
  /**
   * Requests in flight at once over every connection; one more ends the oldest request whose body is slow
   * to arrive, or is answered 503 at once, unread, when none is.
   */
  maxRequests?: number;
  /** AMENDER_BASE_PATH: a prefix an ingress leaves in the paths, taken off those that start with it (base-path.ts). */
  basePath?: string;
  /** Called when a request is answered 503 at once because `maxRequests` are in flight. */
  onRequestRefused?: () => void;
  /** Called when a request whose body was slow to arrive is ended to make room for a new one. */
  onSlowRequestEnded?: () => void;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly protocol: 'http' | 'https';
  /** Requests being handled right now. */
  inFlight(): number;
  /** True once `close()` was called. */
  draining(): boolean;
  /**
   * Replaces the certificate and key for new TLS connections (a rotated certificate); connections already
   * open keep theirs. Throws for a plain HTTP server or unusable material.
   */
  setTls(tls: TlsMaterial): void;
  /**
   * Ends the request of the oldest answer whose connection has not moved for a second (see
   * node-slow-requests.ts); false when there is none. For the body budget, which counts replies.
   */
  endStalledAnswer(): boolean;
  /** Graceful shutdown; resolves when every connection is closed. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * How often Node looks for connections past their header or request timeout: a quarter of the shorter
 * timeout, between 100 ms and 1 s, so a timeout is enforced within a little more than its own length.
 */
function checkingIntervalMs(headersTimeoutMs: number, requestTimeoutMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)));
}

/** A request that could not be read as HTTP ends its HTTP/1.1 connection too (HTTP/2 forbids the header). */
function badRequestResponse(message: string, http1: boolean): Response {
  return Response.json(statusBody(400, `malformed request: ${message}`), { status: 400, headers: http1 ? { connection: 'close' } : {} });
}

/**
 * The answer to a request over the cap, written as it stands: nothing of the request is read, and no
 * object of the app's is made for it. An HTTP/1.1 connection is closed after it (its body was not read).
 * An HTTP/2 stream is reset with REFUSED_STREAM, the protocol's "not processed, safe to retry" (RFC 9113
 * §8.7; Go's client, the API server's, retries it), and holds nothing: a 503 written on a stream whose
 * client keeps its flow-control window shut stayed open, outside the cap (~12 KB each: 250 streams per
 * connection, AMENDER_MAX_CONNECTIONS connections).
 */
function refuseRequest(req: IncomingRequest, res: OutgoingResponse, maxRequests: number): void {
  if (req.httpVersionMajor === 2) {
    const { stream } = res as Http2ServerResponse;
    stream.close(loadHttp2().constants.NGHTTP2_REFUSED_STREAM);
    return;
  }
  const body = JSON.stringify(statusBody(503, `the server already has ${maxRequests} requests in flight (AMENDER_MAX_REQUESTS); try again`));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  (res as ServerResponse).writeHead(503, headers);
  res.end(body);
}

/**
 * Slots beyond `maxRequests` that only probes may take (PROBE_PATHS, GET or HEAD): a kubelet's liveness
 * and readiness probes are answered while reviews hold every slot. A failed liveness probe restarts the
 * pod, dropping every review in flight and moving the load to the other replicas, and a failed readiness
 * probe takes it out of the Service for the same load: saturation is answered by refusing reviews (safe to
 * retry), not by looking dead. A few probes per container and period: 16 leave room for every probe of a
 * pod and a monitor or two, and bound what probes alone may hold.
 */
const PROBE_SLOTS = 16;
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/** A liveness or readiness probe: GET or HEAD of /healthz or /readyz (any query; under the base path too). */
function isProbe(req: IncomingRequest, basePath: string | undefined): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const target = req.url ?? '';
  const query = target.indexOf('?');
  return PROBE_PATHS.has(withoutPathPrefix(query === -1 ? target : target.slice(0, query), basePath));
}

/**
 * Streams one HTTP/2 connection may have open at once (Node's own default has no bound): Go's HTTP/2
 * server default, which the API server's client, written in Go, opens another connection beyond. Each
 * stream whose body waits unread (the body budget) keeps up to a flow-control window (64 KiB) of it in
 * the server's memory, so one connection could otherwise hold any amount.
 */
const MAX_CONCURRENT_STREAMS = 250;
/**
 * How long an HTTP/1.1 connection may wait idle between requests. A client reusing a pooled connection
 * at the moment the server closes it gets an EOF or a reset, and Go's HTTP client (the API server's
 * webhook client, Knative's queue-proxy, which calls this server over HTTP/1.1) never retries a POST on
 * that: the review fails, and with it the admission behind `failurePolicy: Fail` (knative/serving#12414).
 * Node's default is 5 s (plain HTTP; over TLS the socket timeout, 30 s); Go's clients keep idle
 * connections 90 s (http.DefaultTransport's IdleConnTimeout): longer here, so the client always retires
 * an idle connection first. The connection cap closes the idle longest when it needs the room.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;

/** The HTTP/2 session of a TLS socket, for the drain. */
const SESSION = Symbol('amender.http2Session');

/**
 * node:http2, loaded on demand. `require`, not `import()`: the built server is a script compiled by
 * vm.Script, where `import()` has no loader.
 */
function loadHttp2(): typeof import('node:http2') {
  return createRequire(import.meta.url)('node:http2') as typeof import('node:http2');
}

export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const host = options.host;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeoutMs = Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs);
  const urlHost = host === undefined || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;

  let inFlight = 0;
  // An answer its client does not take is ended after the request timeout (node-slow-requests.ts).
  const slowRequests = new SlowRequests(requestTimeoutMs);
  const drain = createDrain({ shutdownTimeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, inFlight: () => inFlight });
  const listener = requestListener(options.fetch, {
    closesAfter: drain.closesAfter,
    slowRequests,
    // HTTP/1.0 may omit Host (HTTP/1.1 without Host is refused 400 by Node itself).
    defaultHost: urlHost,
    basePath: options.basePath,
    badRequest: (req, message) => {
      options.onBadRequest?.({ method: req.method ?? '', target: req.url ?? '', message });
      return badRequestResponse(message, req.httpVersionMajor !== 2);
    },
    failed: (err) => {
      options.onError?.(err);
      return new Response('internal error\n', { status: 500, headers: { 'content-type': 'text/plain' } });
    },
  });

  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const connections = createConnectionCap({ maxConnections, onEvicted: options.onConnectionEvicted, onRefused: options.onConnectionDropped });
  const handle = (req: IncomingRequest, res: OutgoingResponse, expectsContinue = false) => {
    // An HTTP/1.1 connection with a request in flight is never closed to make room (HTTP/2: its session's
    // streams). A request refused below is not given back: its connection is closed after the 503.
    const connection = req.httpVersionMajor === 2 ? undefined : connections.request(req.socket);
    if (inFlight >= maxRequests + (isProbe(req, options.basePath) ? PROBE_SLOTS : 0)) {
      // Its slot is given back when its response closes, shortly: this one is served meanwhile.
      if (slowRequests.endOldest()) options.onSlowRequestEnded?.();
      else {
        options.onRequestRefused?.();
        refuseRequest(req, res, maxRequests);
        return;
      }
    }
    inFlight++;
    res.once('close', () => {
      if (connection) connections.answered(connection);
      inFlight--;
      slowRequests.closed(req);
      drain.activity();
    });
    if (req.httpVersionMajor !== 2) drain.requestOn(req as Http1Request);
    drain.activity();
    void listener(req, res, expectsContinue);
  };
  // With a listener here, Node leaves `Expect: 100-continue` to the app: the body is invited when read (node-listener.ts).
  const handleExpectingContinue = (req: IncomingRequest, res: OutgoingResponse) => handle(req, res, true);

  let server: HttpServer | Http2SecureServer;
  if (options.tls) {
    // Loaded only for TLS: node:http2 brings tls and crypto, tens of milliseconds of a cold start.
    const { constants: h2, createSecureServer } = loadHttp2();
    const secure = createSecureServer(
      { cert: options.tls.cert, key: options.tls.key, allowHTTP1: true, handshakeTimeout: headersTimeoutMs, settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } },
      handle,
    );
    // HTTP/1.1 over TLS goes through Node's HTTP/1.1 server code, which reads these from the server.
    Object.assign(secure, {
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(headersTimeoutMs, requestTimeoutMs),
      requireHostHeader: true,
    });
    // Node makes an HTTP/2 session (and emits 'session') in its own 'secureConnection' listener, before this one.
    secure.on('secureConnection', (socket: TLSSocket & { [SESSION]?: ServerHttp2Session }) => {
      drain.handshakeDone(socket);
      const session = socket[SESSION];
      connections.secured(socket, socket.alpnProtocol === 'h2' ? session : undefined);
      if (socket.alpnProtocol !== 'h2') drain.addHttp1Connection(socket);
      else if (session) drain.addHttp2Connection(socket, session);
    });
    secure.on('session', (session: ServerHttp2Session) => {
      drain.addSession(session);
      limitFirstStream(session, headersTimeoutMs);
      // Set on the TLS socket itself: the session's `socket` passes a property it does not own on to it.
      (session.socket as unknown as { [SESSION]?: ServerHttp2Session })[SESSION] = session;
    });
    secure.on('stream', (stream) => limitStream(stream, requestTimeoutMs, h2.NGHTTP2_CANCEL));
    server = secure;
  } else {
    server = createHttpServer(
      { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requestTimeout: requestTimeoutMs, headersTimeout: headersTimeoutMs, connectionsCheckingInterval: checkingIntervalMs(headersTimeoutMs, requestTimeoutMs) },
      handle,
    );
  }
  // With no listener for 'timeout', the server destroys the idle socket.
  server.setTimeout(options.idleTimeoutMs ?? requestTimeoutMs);
  // The cap is kept by `connections` (which may close an idle connection for a new one); Node's own, twice
  // as high, only bounds connections closed to make room that are still closing (a GOAWAY being written).
  server.maxConnections = 2 * maxConnections;
  server.on('drop', () => options.onConnectionDropped?.());
  server.on('checkContinue', handleExpectingContinue);
  server.on('connection', (socket: Socket) => {
    if (!connections.accepted(socket)) return;
    drain.addSocket(socket);
    if (!options.tls) drain.addHttp1Connection(socket);
    else drain.addHandshake(socket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    if (host === undefined) server.listen(options.port, listening);
    else server.listen(options.port, host, listening);
  });
  const port = (server.address() as AddressInfo).port;
  const protocol = options.tls ? 'https' : 'http';

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      // net.Server's close: stop accepting. http.Server's own close() would also cut idle keep-alive
      // connections at once, resetting a request a client may have just sent on one.
      NetServer.prototype.close.call(server, () => {
        slowRequests.stop();
        resolve();
      });
      drain.start(server as DrainableServer);
    });
    return closing;
  };

  const setTls = (tls: TlsMaterial) => {
    if (!('setSecureContext' in server)) throw new Error('this server was started without TLS');
    server.setSecureContext({ cert: tls.cert, key: tls.key });
  };

  const endStalledAnswer = () => slowRequests.endStalledAnswer();
  return { url: `${protocol}://${urlHost}:${port}`, port, protocol, inFlight: () => inFlight, draining: drain.started, setTls, endStalledAnswer, close };
}

/**
 * HTTP/2's request timeout: a stream whose request has not fully arrived (no END_STREAM from the client)
 * within `ms` is reset with `cancel` (NGHTTP2_CANCEL); Node's own requestTimeout covers HTTP/1.1 only.
 */
function limitStream(stream: ServerHttp2Stream, ms: number, cancel: number): void {
  const timer = setTimeout(() => {
    if (!stream.destroyed && !stream.state.remoteClose) stream.close(cancel);
  }, ms);
  timer.unref();
  stream.once('close', () => clearTimeout(timer));
}

/**
 * HTTP/2's header timeout: a session must bring its first complete request within `ms` (a client that
 * opens a connection and drips, or sends nothing, is sent GOAWAY and its connection closed). An
 * established session idle between requests is the server's inactivity timeout's business.
 */
function limitFirstStream(session: ServerHttp2Session, ms: number): void {
  const timer = setTimeout(() => {
    if (session.closed || session.destroyed) return;
    // destroy() sends the GOAWAY too. Not close(): with no stream there is nothing to finish, and a session
    // closed gracefully leaves its connection open until the client ends its side, which a client that
    // does not read never does: it would hold a connection (AMENDER_MAX_CONNECTIONS) for ever.
    session.destroy();
  }, ms);
  timer.unref();
  const clear = () => clearTimeout(timer);
  session.once('stream', clear);
  session.once('close', clear);
}
