/**
 * Web `Request` and `Response` (and `Headers`: lambda-web-headers.ts) for the Lambda engine that do not
 * load Node's fetch implementation. Node defines its own classes in undici, and the first use of any of
 * them loads undici with crypto, tls and http2: ~45–60 ms of a Lambda cold start (bench/README.md).
 *
 * The Lambda adapter builds its request as a LambdaRequest (lambda-event.ts), and the Lambda build binds
 * the free names `Headers` and `Response` of the engine script, Hono's included, to LambdaHeaders and
 * LambdaResponse (esbuild `inject` of lambda-web-globals.ts, scripts/build.mjs): a review is answered
 * without undici. The Node server's script is built the same way, with its own request class
 * (node-request.ts). The process's globals are left alone; Workers do not use this.
 *
 * What the app and Hono use is implemented here, with the checks and defaults of Node's classes (invalid
 * names, values, methods, URLs and statuses throw the same errors; a text body gets the same
 * Content-Type). A member that is not (a Request's `cache`, `mode`..., a Response's `type`...) builds
 * Node's own object from the same state and asks it, as does a Response of a body kind not handled here
 * (a Blob, FormData, a stream): that one is Node's own from the start. `instanceof` holds for both kinds.
 */
import { WebBody, type BodySource } from './lambda-web-body.js';
import { isNodeInstance, LambdaHeaders, nodeClass, TOKEN, type HeadersInitLike } from './lambda-web-headers.js';

export { LambdaHeaders } from './lambda-web-headers.js';
export { decodesToItself } from './lambda-web-body.js';

// ---------------------------------------------------------------------------------------------- Request

const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const TEXT_CONTENT_TYPE = 'text/plain;charset=UTF-8';

export interface LambdaRequestInit {
  method?: string;
  headers?: HeadersInitLike;
  /** Text (a plain event body) or bytes (a base64 one). */
  body?: string | Uint8Array | null;
}

/**
 * The request handed to the app: what Hono and the routes read (url, method, headers, the body, signal)
 * without undici. Checks like Node's Request: a bad URL, method or body for the method is a TypeError.
 */
export class LambdaRequest extends WebBody {
  readonly url: string;
  readonly method: string;
  readonly headers: LambdaHeaders;
  #signal: AbortSignal | undefined;
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
    const upper = method.toUpperCase();
    if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`'${method}' HTTP method is unsupported.`);
    this.method = NORMALIZED_METHODS.has(upper) ? upper : method;
    this.headers = new LambdaHeaders(init.headers);
    if (body !== null && (this.method === 'GET' || this.method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
    if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', TEXT_CONTENT_TYPE);
  }

  /** Never aborts, as the signal of a Request made without one: Lambda answers an invocation whole. */
  get signal(): AbortSignal {
    return (this.#signal ??= new AbortController().signal);
  }

  clone(): LambdaRequest {
    return this.withBodyCopy(() => new LambdaRequest(this.url, { method: this.method, headers: this.headers }));
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

/** Getters on `prototype` for members nothing here reads: each is answered by Node's own object (`toNode`). */
export function delegateToNode<T>(prototype: T, names: readonly string[], toNode: (self: T) => object): void {
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: T) {
        return (toNode(this) as Record<string, unknown>)[name];
      },
    });
  }
}

/** The members of a Request that the app and Hono never read: light requests ask Node's own for them. */
export const REQUEST_MEMBERS_OF_NODE = ['cache', 'credentials', 'destination', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'duplex'] as const;

delegateToNode(LambdaRequest.prototype, REQUEST_MEMBERS_OF_NODE, (request) => request.toNodeRequest());

// --------------------------------------------------------------------------------------------- Response

/** Statuses whose response has no body (a body given with one is a TypeError). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** RFC 9112 reason-phrase. */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

interface ResponseInitLike {
  status?: number;
  statusText?: string;
  headers?: HeadersInitLike;
}

/** A body this module keeps as it is, with the Content-Type it implies; undefined for other kinds. */
function wholeBody(body: unknown): { source: BodySource; contentType: string | null } | undefined {
  if (body === null || body === undefined) return { source: null, contentType: null };
  if (typeof body === 'string') return { source: body, contentType: TEXT_CONTENT_TYPE };
  // A Web body copies the bytes it is given.
  if (body instanceof ArrayBuffer) return { source: new Uint8Array(body.slice(0)), contentType: null };
  if (ArrayBuffer.isView(body)) return { source: new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)), contentType: null };
  if (body instanceof URLSearchParams) return { source: body.toString(), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  return undefined;
}

/** WebIDL `unsigned short`, as Node's Response converts `init.status`. */
function unsignedShort(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  return ((Math.trunc(n) % 65536) + 65536) % 65536;
}

/**
 * The response the app builds (through Hono's `c.json`, `c.body`, `new Response(...)`): status, headers
 * and a body kept as the text or bytes it was given, which the adapter takes as they are
 * (`LambdaResponse.takeText`). A body of another kind makes Node's own Response instead.
 */
export class LambdaResponse extends WebBody {
  // Assigned in the constructor unless it returns Node's Response instead.
  readonly status!: number;
  readonly statusText!: string;
  readonly headers!: LambdaHeaders;
  #node: Response | undefined;

  constructor(body?: unknown, options?: ResponseInitLike | null) {
    const whole = wholeBody(body);
    // Any other body kind (Blob, FormData, a stream...): Node's own Response, which `instanceof` accepts.
    if (whole === undefined) return new (nodeClass('Response'))(body as ConstructorParameters<typeof Response>[0], (options ?? undefined) as ResponseInit | undefined) as unknown as LambdaResponse;
    if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
      throw new TypeError('Response constructor: Expected init to be a dictionary');
    }
    const init = options ?? {};
    const status = init.status === undefined ? 200 : unsignedShort(init.status);
    if (status < 200 || status > 599) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    const statusText = init.statusText === undefined ? '' : String(init.statusText);
    if (!REASON_PHRASE.test(statusText)) throw new TypeError('Invalid statusText');
    if (whole.source !== null && NULL_BODY_STATUSES.has(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
    super(whole.source);
    this.status = status;
    this.statusText = statusText;
    this.headers = new LambdaHeaders(init.headers);
    if (whole.contentType !== null && !this.headers.has('content-type')) this.headers.set('content-type', whole.contentType);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  clone(): LambdaResponse {
    return this.withBodyCopy(() => new LambdaResponse(null, { status: this.status, statusText: this.statusText, headers: this.headers }));
  }

  /** Node's Response with the same status and headers (no body: the body stays this one's). */
  toNodeResponse(): Response {
    return (this.#node ??= new (nodeClass('Response'))(null, { status: this.status, statusText: this.statusText, headers: [...this.headers] }));
  }

  /**
   * The body of a LambdaResponse whose body is text not read yet, marking it read (as the adapter's
   * reading it would); undefined for anything else, which is then read through the Response API.
   */
  static takeText(response: unknown): string | undefined {
    if (typeof response !== 'object' || response === null || !(#node in response)) return undefined;
    return WebBody.takeTextOf(response as LambdaResponse);
  }

  static json(data: unknown, init: ResponseInitLike = {}): LambdaResponse {
    const text = JSON.stringify(data) as string | undefined;
    if (text === undefined) throw new TypeError('Value is not JSON serializable');
    const headers = new LambdaHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LambdaResponse(text, { ...init, headers });
  }

  static error(): Response {
    return nodeClass('Response').error();
  }

  static redirect(url: string | URL, status?: number): Response {
    return nodeClass('Response').redirect(url, (status ?? 302) as Parameters<typeof Response.redirect>[1]);
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #node in value) || isNodeInstance(value, 'Response');
  }
}

delegateToNode(LambdaResponse.prototype, ['type', 'url', 'redirected'], (response) => response.toNodeResponse());
