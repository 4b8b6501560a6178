/**
 * Web `Headers`, `Request` and `Response` for the Lambda engine that do not load Node's fetch
 * implementation. Node defines its own classes in undici, and the first use of any of them loads undici
 * with crypto, tls and http2: ~45–60 ms of a Lambda cold start (bench/README.md, "Cold start").
 *
 * The Lambda adapter builds its request as a LambdaRequest (lambda-event.ts), and the Lambda build binds
 * the free names `Headers` and `Response` of the engine script, Hono's included, to LambdaHeaders and
 * LambdaResponse (esbuild `inject` of lambda-web-globals.ts, scripts/build.mjs): a review is answered
 * without undici. The process's globals are left alone; the Node server and Workers do not use this.
 *
 * What the app and Hono use is implemented here, with the checks and defaults of Node's classes (invalid
 * names, values, methods, URLs and statuses throw the same errors; a text body gets the same
 * Content-Type). A member that is not (a Request's `cache`, `mode`..., a Response's `type`...) builds
 * Node's own object from the same state and asks it, as does a Response of a body kind not handled here
 * (a Blob, FormData, a stream): that one is Node's own from the start. `instanceof` holds for both kinds.
 */

type BodySource = string | Uint8Array | null;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Node's classes, looked up only when one is needed (the lookup is what loads undici).
const nodeHeadersClass = (): typeof Headers => globalThis.Headers;
const nodeRequestClass = (): typeof Request => globalThis.Request;
const nodeResponseClass = (): typeof Response => globalThis.Response;

/** True for an object of Node's own `kind` class; looks the class up only for an object tagged so. */
function isNodeInstance(value: unknown, kind: 'Headers' | 'Request' | 'Response', nodeClass: () => unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.prototype.toString.call(value) !== `[object ${kind}]`) return false;
  return value instanceof (nodeClass() as new () => object);
}

// ---------------------------------------------------------------------------------------------- Headers

/** RFC 9110 token: what a header name and a method may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters a header value may not hold once trimmed; beyond U+00FF it is not a ByteString. */
const NOT_IN_VALUE = /[\0\r\n\u0100-\uffff]/;

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function headerName(name: unknown, operation: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`${operation}: "${text}" is an invalid header name.`);
  return text.toLowerCase();
}

function headerValue(value: unknown, operation: string): string {
  const text = String(value);
  let start = 0;
  let end = text.length;
  while (start < end && isHttpWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(text.charCodeAt(end - 1))) end--;
  const trimmed = start === 0 && end === text.length ? text : text.slice(start, end);
  if (NOT_IN_VALUE.test(trimmed)) throw new TypeError(`${operation}: "${trimmed}" is an invalid header value.`);
  return trimmed;
}

type HeadersInitLike = Iterable<Iterable<unknown>> | Record<string, unknown> | null | undefined;

export class LambdaHeaders {
  /** Lower-cased name → value (several values joined with ", "), Set-Cookie apart. */
  #fields = new Map<string, string>();
  #cookies: string[] = [];

  constructor(init?: HeadersInitLike) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object' && typeof init !== 'function') {
      throw new TypeError("Headers constructor: Expected init to be an iterable of pairs or a record");
    }
    if (#fields in init) {
      this.#fields = new Map(init.#fields);
      this.#cookies = [...init.#cookies];
    } else if (Symbol.iterator in init) {
      for (const pair of init as Iterable<Iterable<unknown>>) {
        const items = Array.isArray(pair) ? pair : Array.from(pair);
        if (items.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${items.length}.`);
        this.#append(items[0], items[1], 'Headers.append');
      }
    } else {
      for (const name of Object.keys(init)) this.#append(name, (init as Record<string, unknown>)[name], 'Headers.append');
    }
  }

  #append(name: unknown, value: unknown, operation: string): void {
    const key = headerName(name, operation);
    const text = headerValue(value, operation);
    if (key === 'set-cookie') this.#cookies.push(text);
    else {
      const previous = this.#fields.get(key);
      this.#fields.set(key, previous === undefined ? text : `${previous}, ${text}`);
    }
  }

  append(name: string, value: string): void {
    this.#append(name, value, 'Headers.append');
  }

  set(name: string, value: string): void {
    const key = headerName(name, 'Headers.set');
    const text = headerValue(value, 'Headers.set');
    if (key === 'set-cookie') this.#cookies = [text];
    else this.#fields.set(key, text);
  }

  get(name: string): string | null {
    const key = headerName(name, 'Headers.get');
    if (key === 'set-cookie') return this.#cookies.length > 0 ? this.#cookies.join(', ') : null;
    return this.#fields.get(key) ?? null;
  }

  has(name: string): boolean {
    const key = headerName(name, 'Headers.has');
    return key === 'set-cookie' ? this.#cookies.length > 0 : this.#fields.has(key);
  }

  delete(name: string): void {
    const key = headerName(name, 'Headers.delete');
    if (key === 'set-cookie') this.#cookies = [];
    else this.#fields.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  /** The fields as Node's Headers iterates them: sorted by name, each Set-Cookie apart. */
  #sorted(): [string, string][] {
    const names = [...this.#fields.keys()];
    if (this.#cookies.length > 0) names.push('set-cookie');
    names.sort();
    const entries: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) entries.push([name, cookie]);
      else entries.push([name, this.#fields.get(name)!]);
    }
    return entries;
  }

  forEach(callback: (value: string, name: string, headers: LambdaHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#sorted()) callback.call(thisArg, value, name, this);
  }

  entries(): IterableIterator<[string, string]> {
    return this.#sorted()[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return this.#sorted().map(([name]) => name)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return this.#sorted().map(([, value]) => value)[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #fields in value) || isNodeInstance(value, 'Headers', nodeHeadersClass);
  }
}

// ------------------------------------------------------------------------------------------------- Body

function unusable(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}

/**
 * A body given whole (text or bytes), read at most once like a Web body; its `ReadableStream` is made
 * only when asked for (Node's stream classes are not undici, but cost something to load).
 */
class WholeBody {
  #source: BodySource;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(source: BodySource) {
    this.#source = source;
  }

  get used(): boolean {
    return this.#used;
  }

  /** The stream of the body (null for none); reading or cancelling it uses the body. */
  stream(): ReadableStream<Uint8Array> | null {
    if (this.#source === null) return null;
    if (this.#stream === undefined) {
      const source = this.#source;
      // A high-water mark of 0: nothing is pulled (and the body stays unused) until someone reads.
      this.#stream = new ReadableStream<Uint8Array>(
        {
          pull: (controller) => {
            this.#used = true;
            const bytes = typeof source === 'string' ? encoder.encode(source) : source;
            if (bytes.byteLength > 0) controller.enqueue(bytes);
            controller.close();
          },
          cancel: () => {
            this.#used = true;
          },
        },
        { highWaterMark: 0 },
      );
      if (this.#used) this.#stream.getReader(); // read already (by text()...): locked, as a Web body's is
    }
    return this.#stream;
  }

  /** Marks the body read: its stream, if one was made, is locked as a Web body's is then. */
  #markUsed(): void {
    this.#used = true;
    this.#stream?.getReader();
  }

  #usable(): boolean {
    return !this.#used && !(this.#stream?.locked ?? false);
  }

  /** The text or bytes, marking the body used; throws TypeError when it was read already. */
  take(): string | Uint8Array {
    if (this.#source === null) return new Uint8Array(0); // a null body is never "used"
    if (!this.#usable()) throw unusable();
    this.#markUsed();
    return this.#source;
  }

  /** The text when the body is text not read yet; undefined otherwise (nothing is marked then). */
  takeText(): string | undefined {
    if (typeof this.#source !== 'string' || !this.#usable()) return undefined;
    this.#markUsed();
    return this.#source;
  }

  /** A copy for `clone()`: the source is never changed, so the copy shares it. */
  copy(): WholeBody {
    if (this.#source !== null && !this.#usable()) throw new TypeError('Body has already been consumed.');
    return new WholeBody(this.#source);
  }

  async bytes(): Promise<Uint8Array> {
    const taken = this.take();
    return typeof taken === 'string' ? encoder.encode(taken) : taken;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    // A view over part of a buffer (a base64 decoding, an encoder's output) is copied to its own.
    if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
    return bytes.slice().buffer as ArrayBuffer;
  }

  async text(): Promise<string> {
    const taken = this.take();
    // What a Web body's text() gives: its UTF-8 decoded, lone surrogates replaced and a BOM dropped.
    if (typeof taken === 'string' && isWellFormed(taken) && taken.charCodeAt(0) !== 0xfeff) return taken;
    return decoder.decode(typeof taken === 'string' ? encoder.encode(taken) : taken);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(type: string | null): Promise<Blob> {
    return new Blob([await this.bytes()], { type: type ?? '' });
  }

  /** Parsed by Node's Response (FormData parsing is undici's). */
  async formData(contentType: string | null): Promise<FormData> {
    const bytes = await this.bytes();
    return new (nodeResponseClass())(bytes, contentType === null ? {} : { headers: { 'content-type': contentType } }).formData();
  }
}

/** True when `text` has no lone surrogate, i.e. its UTF-8 decodes back to it. */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed(); // ES2024, in Node 20 and later
}

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
export class LambdaRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: LambdaHeaders;
  #body: WholeBody;
  #signal: AbortSignal | undefined;
  #node: Request | undefined;

  constructor(url: string, init: LambdaRequestInit = {}) {
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
    const body = init.body ?? null;
    if (body !== null && (this.method === 'GET' || this.method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
    if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', TEXT_CONTENT_TYPE);
    this.#body = new WholeBody(body);
  }

  /** Never aborts, as the signal of a Request made without one: Lambda answers an invocation whole. */
  get signal(): AbortSignal {
    return (this.#signal ??= new AbortController().signal);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body.stream();
  }

  get bodyUsed(): boolean {
    return this.#body.used;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#body.arrayBuffer();
  }

  bytes(): Promise<Uint8Array> {
    return this.#body.bytes();
  }

  text(): Promise<string> {
    return this.#body.text();
  }

  json(): Promise<unknown> {
    return this.#body.json();
  }

  blob(): Promise<Blob> {
    return this.#body.blob(this.headers.get('content-type'));
  }

  formData(): Promise<FormData> {
    return this.#body.formData(this.headers.get('content-type'));
  }

  clone(): LambdaRequest {
    const body = this.#body.copy();
    const copy = new LambdaRequest(this.url, { method: this.method, headers: this.headers });
    copy.#body = body;
    return copy;
  }

  /** Node's Request with the same URL, method and headers (no body: the body stays this one's). */
  toNodeRequest(): Request {
    return (this.#node ??= new (nodeRequestClass())(this.url, { method: this.method, headers: [...this.headers] }));
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #body in value) || isNodeInstance(value, 'Request', nodeRequestClass);
  }
}

// The members of a Request that nothing here reads: answered by Node's Request.
for (const name of ['cache', 'credentials', 'destination', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'duplex'] as const) {
  Object.defineProperty(LambdaRequest.prototype, name, {
    configurable: true,
    get(this: LambdaRequest) {
      return (this.toNodeRequest() as unknown as Record<string, unknown>)[name];
    },
  });
}

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
export class LambdaResponse {
  // Assigned in the constructor unless it returns Node's Response instead.
  readonly status!: number;
  readonly statusText!: string;
  readonly headers!: LambdaHeaders;
  #body!: WholeBody;
  #node: Response | undefined;

  constructor(body?: unknown, options?: ResponseInitLike | null) {
    const whole = wholeBody(body);
    // Any other body kind (Blob, FormData, a stream...): Node's own Response, which `instanceof` accepts.
    if (whole === undefined) return new (nodeResponseClass())(body as ConstructorParameters<typeof Response>[0], (options ?? undefined) as ResponseInit | undefined) as unknown as LambdaResponse;
    if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
      throw new TypeError('Response constructor: Expected init to be a dictionary');
    }
    const init = options ?? {};
    const status = init.status === undefined ? 200 : unsignedShort(init.status);
    if (status < 200 || status > 599) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    const statusText = init.statusText === undefined ? '' : String(init.statusText);
    if (!REASON_PHRASE.test(statusText)) throw new TypeError('Invalid statusText');
    if (whole.source !== null && NULL_BODY_STATUSES.has(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
    this.status = status;
    this.statusText = statusText;
    this.headers = new LambdaHeaders(init.headers);
    if (whole.contentType !== null && !this.headers.has('content-type')) this.headers.set('content-type', whole.contentType);
    this.#body = new WholeBody(whole.source);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body.stream();
  }

  get bodyUsed(): boolean {
    return this.#body.used;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#body.arrayBuffer();
  }

  bytes(): Promise<Uint8Array> {
    return this.#body.bytes();
  }

  text(): Promise<string> {
    return this.#body.text();
  }

  json(): Promise<unknown> {
    return this.#body.json();
  }

  blob(): Promise<Blob> {
    return this.#body.blob(this.headers.get('content-type'));
  }

  formData(): Promise<FormData> {
    return this.#body.formData(this.headers.get('content-type'));
  }

  clone(): LambdaResponse {
    const body = this.#body.copy();
    const copy = new LambdaResponse(null, { status: this.status, statusText: this.statusText, headers: this.headers });
    copy.#body = body;
    return copy;
  }

  /** Node's Response with the same status and headers (no body: the body stays this one's). */
  toNodeResponse(): Response {
    return (this.#node ??= new (nodeResponseClass())(null, { status: this.status, statusText: this.statusText, headers: [...this.headers] }));
  }

  /**
   * The body of a LambdaResponse whose body is text not read yet, marking it read (as the adapter's
   * reading it would); undefined for anything else, which is then read through the Response API.
   */
  static takeText(response: unknown): string | undefined {
    if (typeof response !== 'object' || response === null || !(#body in response)) return undefined;
    return (response as LambdaResponse).#body.takeText();
  }

  static json(data: unknown, init: ResponseInitLike = {}): LambdaResponse {
    const text = JSON.stringify(data) as string | undefined;
    if (text === undefined) throw new TypeError('Value is not JSON serializable');
    const headers = new LambdaHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LambdaResponse(text, { ...init, headers });
  }

  static error(): Response {
    return nodeResponseClass().error();
  }

  static redirect(url: string | URL, status?: number): Response {
    return nodeResponseClass().redirect(url, (status ?? 302) as Parameters<typeof Response.redirect>[1]);
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #body in value) || isNodeInstance(value, 'Response', nodeResponseClass);
  }
}

// The members of a Response that nothing here reads: answered by Node's Response.
for (const name of ['type', 'url', 'redirected'] as const) {
  Object.defineProperty(LambdaResponse.prototype, name, {
    configurable: true,
    get(this: LambdaResponse) {
      return (this.toNodeResponse() as unknown as Record<string, unknown>)[name];
    },
  });
}
