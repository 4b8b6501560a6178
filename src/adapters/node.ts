/**
 * Runs a fetch handler (the Hono app) on Node: plain HTTP/1.1, or HTTPS with HTTP/2 and HTTP/1.1 offered
 * by ALPN when a certificate and key are given (the API server speaks either). `close()` drains: it stops
 * accepting, lets requests in flight finish, and cuts what is left after the shutdown timeout.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface TlsMaterial {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface NodeServerOptions {
  fetch: FetchHandler;
  port: number;
  host?: string;
  tls?: TlsMaterial;
  /** Longest time a request may take from its first byte to its response (Node's requestTimeout). */
  requestTimeoutMs?: number;
  /** How long `close()` waits for requests in flight before cutting connections. */
  shutdownTimeoutMs?: number;
  /** Called for an error the fetch handler did not turn into a response (it answers 500). */
  onError?: (err: unknown) => void;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly protocol: 'http' | 'https';
  /** Requests being handled right now. */
  inFlight(): number;
  /**
   * Replaces the certificate and key for new TLS connections (a rotated certificate); connections already
   * open keep theirs. Throws for a plain HTTP server or unusable material.
   */
  setTls(tls: TlsMaterial): void;
  /** Graceful shutdown; resolves when every connection is closed. Safe to call twice. */
  close(): Promise<void>;
}

export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const host = options.host ?? '0.0.0.0';
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  let inFlight = 0;
  const listener = getRequestListener(options.fetch, {
    errorHandler: (err) => {
      options.onError?.(err);
      return new Response('internal error\n', { status: 500, headers: { 'content-type': 'text/plain' } });
    },
  });
  const handle = (req: Parameters<typeof listener>[0], res: Parameters<typeof listener>[1]) => {
    inFlight++;
    res.once('close', () => inFlight--);
    void listener(req, res);
  };

  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  let server: HttpServer | Http2SecureServer;
  if (options.tls) {
    const secure = createSecureServer({ cert: options.tls.cert, key: options.tls.key, allowHTTP1: true }, handle);
    secure.on('session', (session: ServerHttp2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    secure.setTimeout(requestTimeoutMs);
    server = secure;
  } else {
    const plain = createHttpServer({ requestTimeout: requestTimeoutMs }, handle);
    server = plain;
  }
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const protocol = options.tls ? 'https' : 'http';
  const urlHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // HTTP/2: GOAWAY lets streams in flight finish and refuses new ones on the session.
      for (const session of sessions) session.close();
      // HTTP/1.1: keep-alive connections with no request are closed now, busy ones when their response ends.
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      const cutoff = setTimeout(() => {
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      }, options.shutdownTimeoutMs ?? 20_000);
      cutoff.unref();
      server.once('close', () => clearTimeout(cutoff));
    });
    return closing;
  };

  const setTls = (tls: TlsMaterial) => {
    if (!('setSecureContext' in server)) throw new Error('this server was started without TLS');
    server.setSecureContext({ cert: tls.cert, key: tls.key });
  };

  return { url: `${protocol}://${urlHost}:${port}`, port, protocol, inFlight: () => inFlight, setTls, close };
}
