/**
 * The request the Lambda adapter hands the app (lambda-event.ts builds it from the event): a Web `Request`
 * without undici (src/adapters/web says why), its body the event's text or bytes, given whole.
 */
import type { TextBodyRequest } from '../server/index.js';
import { REQUEST_MEMBERS_OF_NODE, delegateToNode, isNodeInstance, LightHeaders, nodeClass, normalizeMethod, TOKEN, WebBody, type HeadersInitLike } from './web/index.js';

/** The signal of every LambdaRequest (see `signal`). */
let neverAborted: AbortSignal | undefined;

export interface LambdaRequestInit {
  method?: string;
  headers?: HeadersInitLike;
  /** Text (a plain event body) or bytes (a base64 one). */
  body?: string | Uint8Array | null;
  /** What the invocation has left for the answer (see `timeLeftMs`). */
  timeLeftMs?: () => number;
}

/**
 * The request handed to the app: what Hono and the routes read (url, method, headers, the body, signal)
 * without undici. Checks like Node's Request: a bad URL, method or body for the method is a TypeError.
 * Unlike Request, a text body gets no Content-Type: the headers are the event's, as the client sent them,
 * so the app applies its rule for a request without one (a review read as JSON) as it does on Node and
 * Workers, instead of refusing a text/plain this class would have invented. Unlike Request, CONNECT,
 * TRACE and TRACK (which fetch forbids making) are taken: the app answers them 405 as on Node and Workers.
 */
export class LambdaRequest extends WebBody implements TextBodyRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: LightHeaders;
  /**
   * Milliseconds the invocation leaves for the answer, when the handler knows (its context's
   * getRemainingTimeInMillis, less a margin): the app's review deadline fits inside it (TimeLeftRequest),
   * so a slow review is answered by its policies' failurePolicy instead of ending in Lambda's timeout.
   */
  readonly timeLeftMs: (() => number) | undefined;
  #node: Request | undefined;

  constructor(url: string, init: LambdaRequestInit = {}) {
    const body = init.body ?? null;
    super(body);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (err) {
      throw new TypeError(`Failed to parse URL from ${url}`, { cause: err });
    }
    if (parsed.username !== '' || parsed.password !== '') throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url}`);
    this.url = parsed.href;
    const method = init.method ?? 'GET';
    if (!TOKEN.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
    this.method = normalizeMethod(method);
    this.headers = new LightHeaders(init.headers);
    this.timeLeftMs = init.timeLeftMs;
    if (body !== null && (this.method === 'GET' || this.method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
  }

  /**
   * Never aborts, as the signal of a Request made without one: Lambda answers an invocation whole. One
   * signal serves every request (its controller is never used): making one costs a request ~5 µs.
   */
  get signal(): AbortSignal {
    return (neverAborted ??= new AbortController().signal);
  }

  clone(): LambdaRequest {
    return this.withBodyCopy(() => new LambdaRequest(this.url, { method: this.method, headers: this.headers, ...(this.timeLeftMs ? { timeLeftMs: this.timeLeftMs } : {}) }));
  }

  /**
   * The body's text when it is text not read yet (a plain event body), marking it read; undefined
   * otherwise. The app reads a review this way (TextBodyRequest) instead of encoding the text to bytes and
   * decoding them back.
   */
  takeBodyText(): string | undefined {
    return WebBody.takeTextOf(this);
  }

  /** Node's Request with the same URL, method and headers (no body: the body stays this one's). */
  toNodeRequest(): Request {
    return (this.#node ??= new (nodeClass('Request'))(this.url, { method: this.method, headers: [...this.headers] }));
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #node in value) || isNodeInstance(value, 'Request');
  }
}

delegateToNode(LambdaRequest.prototype, REQUEST_MEMBERS_OF_NODE, (request) => request.toNodeRequest());

