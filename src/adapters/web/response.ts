/**
 * A Web `Response` without undici (see index.ts): status, headers and a body kept as the text or bytes it
 * was given, which an adapter writes as they are (`LightResponse.takeText`). A body of another kind (a
 * Blob, FormData, a stream) makes Node's own Response instead, which `instanceof` accepts too.
 */
import { TEXT_CONTENT_TYPE, WebBody, type BodySource } from './body.js';
import { delegateToNode } from './delegate.js';
import { isNodeInstance, LightHeaders, nodeClass, type HeadersInitLike } from './headers.js';

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
 * (`LightResponse.takeText`). A body of another kind makes Node's own Response instead.
 */
export class LightResponse extends WebBody {
  // Assigned in the constructor unless it returns Node's Response instead.
  readonly status!: number;
  readonly statusText!: string;
  readonly headers!: LightHeaders;
  #node: Response | undefined;

  constructor(body?: unknown, options?: ResponseInitLike | null) {
    const whole = wholeBody(body);
    // Any other body kind (Blob, FormData, a stream...): Node's own Response, which `instanceof` accepts.
    if (whole === undefined) return new (nodeClass('Response'))(body as ConstructorParameters<typeof Response>[0], (options ?? undefined) as ResponseInit | undefined) as unknown as LightResponse;
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
    this.headers = new LightHeaders(init.headers);
    if (whole.contentType !== null && !this.headers.has('content-type')) this.headers.set('content-type', whole.contentType);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  clone(): LightResponse {
    return this.withBodyCopy(() => new LightResponse(null, { status: this.status, statusText: this.statusText, headers: this.headers }));
  }

  /** Node's Response with the same status and headers (no body: the body stays this one's). */
  toNodeResponse(): Response {
    return (this.#node ??= new (nodeClass('Response'))(null, { status: this.status, statusText: this.statusText, headers: [...this.headers] }));
  }

  /**
   * The body of a LightResponse whose body is text not read yet, marking it read (as the adapter's
   * reading it would); undefined for anything else, which is then read through the Response API.
   */
  static takeText(response: unknown): string | undefined {
    if (typeof response !== 'object' || response === null || !(#node in response)) return undefined;
    return WebBody.takeTextOf(response as LightResponse);
  }

  static json(data: unknown, init: ResponseInitLike = {}): LightResponse {
    const text = JSON.stringify(data) as string | undefined;
    if (text === undefined) throw new TypeError('Value is not JSON serializable');
    const headers = new LightHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(text, { ...init, headers });
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

delegateToNode(LightResponse.prototype, ['type', 'url', 'redirected'], (response) => response.toNodeResponse());
