/**
 * The Node server's request listener: each request goes to the fetch handler (the Hono app) as a
 * NodeRequest, and the Response it returns is written back. No undici on the way (node-request.ts says
 * why): the build binds the server script's `Response` and `Headers` to the light classes of
 * src/adapters/web, whose text body is written as it is; any other Response is read through its body.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { LightResponse } from './web/index.js';
import { NodeRequest, type IncomingRequest } from './node-request.js';
import { BadRequestError, requestUrl } from './node-request-url.js';
import type { SlowRequests } from './node-slow-requests.js';

export type OutgoingResponse = ServerResponse | Http2ServerResponse;
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface ListenerOptions {
  /** Stands in for a missing Host (HTTP/1.0 may omit it). */
  defaultHost: string;
  /** AMENDER_BASE_PATH: taken off the paths that start with it (base-path.ts). */
  basePath?: string;
  /** The answer to a request whose Host or target cannot make a URL. */
  badRequest(incoming: IncomingRequest, message: string): Response;
  /** The answer when the fetch handler throws. */
  failed(err: unknown): Response;
  /**
   * True once the server drains (node-drain.ts) for an HTTP/1.1 answer that is to carry `Connection:
   * close`, so that the client sends nothing more on that connection: the last of those in flight on it.
   */
  closesAfter?(request: IncomingRequest): boolean;
  /** Where requests whose bodies are slow, or whose answers are not taken, are listed (node-slow-requests.ts). */
  slowRequests?: SlowRequests;
}

/** Fields HTTP/2 forbids in a response (RFC 9113 §8.2.2); Node throws for them. */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * The `100 Continue` a request with `Expect: 100-continue` waits for, sent when the app first reads its
 * body: a request answered unread (401, 404, 413 by its Content-Length) never invites the body, which
 * its client then need not send (RFC 9110 §10.1.1).
 */
class ContinueInvitation {
  #sent = false;
  constructor(private readonly outgoing: OutgoingResponse) {}

  send = (): void => {
    if (this.#sent || this.outgoing.headersSent || this.outgoing.destroyed) return;
    this.#sent = true;
    this.outgoing.writeContinue();
  };

  /** True when the answer goes out with the body never invited. */
  get withheld(): boolean {
    return !this.#sent;
  }
}

/** `expectsContinue`: the request came through the server's 'checkContinue' event (it waits for 100 Continue). */
export function requestListener(
  fetch: FetchHandler,
  options: ListenerOptions,
): (incoming: IncomingRequest, outgoing: OutgoingResponse, expectsContinue?: boolean) => Promise<void> {
  return async (incoming, outgoing, expectsContinue = false) => {
    const invitation = expectsContinue ? new ContinueInvitation(outgoing) : undefined;
    let response: Response;
    try {
      response = await answer(fetch, options, incoming, outgoing, invitation);
    } catch (err) {
      // Only a fault of the listener itself gets here: a request is never left without an answer.
      response = options.failed(err);
    }
    try {
      await writeResponse(incoming, outgoing, response, options, invitation?.withheld ?? false);
    } catch {
      // The answer could not be read or written (the client is gone): nothing is left to tell anyone.
      outgoing.destroy();
    }
  };
}

/** The fetch handler's Response to the request, or the answer to a request that makes no URL. */
async function answer(
  fetch: FetchHandler,
  options: ListenerOptions,
  incoming: IncomingRequest,
  outgoing: OutgoingResponse,
  invitation: ContinueInvitation | undefined,
): Promise<Response> {
  let url: string;
  try {
    url = requestUrl(incoming, options.defaultHost, options.basePath);
  } catch (err) {
    if (err instanceof BadRequestError) return options.badRequest(incoming, err.message);
    throw err;
  }
  const request = new NodeRequest(incoming, url, options.slowRequests, invitation?.send);
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) request.abort(new DOMException('the client closed the connection before the answer was sent', 'AbortError'));
    // Written whole (handed to the connection) or never to be: either way the answer no longer waits in memory.
    request.answerDone();
  });
  try {
    return await fetch(request as unknown as Request);
  } catch (err) {
    return options.failed(err);
  }
}

/** The Response's body as text or bytes; undefined for none. */
async function bodyOf(response: Response): Promise<string | Uint8Array | undefined> {
  const text = LightResponse.takeText(response);
  if (text !== undefined) return text;
  if (response.body === null) return undefined;
  return new Uint8Array(await response.arrayBuffer());
}

/** `bodyWithheld`: the client waits for 100 Continue, never sent, so its body may or may not follow. */
async function writeResponse(incoming: IncomingRequest, outgoing: OutgoingResponse, response: Response, options: ListenerOptions, bodyWithheld: boolean): Promise<void> {
  const body = await bodyOf(response);
  if (outgoing.destroyed) return;
  const http2 = incoming.httpVersionMajor === 2;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) {
    if (http2 && CONNECTION_SPECIFIC.has(name)) continue;
    const prior = headers[name];
    headers[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  // Asked when the head is written, not when the drain starts: nothing is kept per response to find it then.
  // A body never invited leaves the next request's start unknown on an HTTP/1.1 connection: it ends here.
  if (!http2 && (bodyWithheld || options.closesAfter?.(incoming))) headers.connection = 'close';
  if (body !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  (outgoing as ServerResponse).writeHead(response.status, headers);
  if (body === undefined || incoming.method === 'HEAD') outgoing.end();
  else (outgoing as ServerResponse).end(body);
  // Until its response closes, a client that does not take the answer holds the request (node-slow-requests.ts).
  if (!outgoing.writableFinished) options.slowRequests?.answered(incoming);
}
