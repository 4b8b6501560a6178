/** Clients that talk to the server the way the API server does: TLS verified against a CA, h2 by ALPN. */
import { connect, constants } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The protocol the connection settled on. */
  alpn?: string | false;
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/** One request over HTTP/2 with TLS, CA-verified; the session is closed afterwards. */
export function h2Request(origin: string, path: string, ca: string, opts: SendOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const session = connect(origin, { ca, ALPNProtocols: ['h2'] });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no reply within ${opts.timeoutMs ?? 5000} ms`));
    }, opts.timeoutMs ?? 5000);
    session.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const req = session.request({
      [constants.HTTP2_HEADER_METHOD]: opts.method ?? 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      ...opts.headers,
    });
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: Record<string, string | string[] | undefined> = {};
    req.on('response', (h) => {
      status = Number(h[constants.HTTP2_HEADER_STATUS]);
      headers = h as typeof headers;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      clearTimeout(timer);
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8'), alpn });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      session.destroy();
      reject(err);
    });
    req.end(opts.body);
  });
}

/** One request over HTTP/1.1 (HTTPS with `ca`, plain otherwise). */
export function h1Request(url: string, opts: SendOptions & { ca?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      u,
      // Node's https client offers no ALPN unless asked; the API server's Go client offers h2 and http/1.1.
      { method: opts.method ?? 'POST', headers: opts.headers, ca: opts.ca, agent: false, timeout: opts.timeoutMs ?? 5000, ...{ ALPNProtocols: ['http/1.1'] } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            alpn: (res.socket as { alpnProtocol?: string | false }).alpnProtocol,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no reply within ${opts.timeoutMs ?? 5000} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
