/**
 * The Web `Request` the Node server hands the app, read from Node's request (HTTP/1.1's IncomingMessage
 * or HTTP/2's compatibility request) without undici. Node's Web classes live in undici, and the first
 * use of any of them loads it with crypto, tls and http2: tens of milliseconds of every cold start
 * (bench/JOURNAL.md), for a request whose body the app reads whole anyway.
 *
 * What the app and Hono read is here: url, method, headers, the body (read from the connection on
 * demand, as bytes or as a stream), bodyUsed and signal, which aborts when the client goes away before
 * its answer is sent; the review route reads `clientSignal` instead, which does the same without an
 * AbortController (src/server/client-signal.ts), takes a body that came with the head at once
 * (takeBodyBytes), learns when its answer is done (whenAnswerDone, src/server/answer-done.ts) and when its
 * body is slow (bodyIsSlow, src/server/slow-body.ts). A
 * member nothing here reads (`cache`, `mode`...) is answered by Node's own Request with the same URL,
 * method and headers, made on first use.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { Readable } from 'node:stream';
import { contentLength, LightClientSignal, type AnswerDoneRequest, type ClientSignalRequest, type HeldBodyRequest, type SlowBodyRequest } from '../server/index.js';
import { coalescedBodyStream } from './node-body-stream.js';
import type { SlowRequests } from './node-slow-requests.js';
import { gatherUnreadPieces } from './node-unread-body.js';
import { blobOf, delegateToNode, formDataOf, LightHeaders, nodeClass, normalizeMethod, ownArrayBuffer, REQUEST_MEMBERS_OF_NODE, unusable } from './web/index.js';

export type IncomingRequest = IncomingMessage | Http2ServerRequest;

const decoder = new TextDecoder();

/** The request's header fields as pairs, without HTTP/2's pseudo-headers (`:path`, `:authority`...). */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].charCodeAt(0) !== 0x3a) pairs.push([raw[i], raw[i + 1]]);
  return pairs;
}

/**
 * Every byte of the request's body, as the connection delivers it; rejects when it ends first. A body
 * that comes in several chunks is copied, as they come, into one buffer of its declared length: gathering
 * the chunks and joining them at the end held a large body twice (the Node server holds many bodies at
 * once: src/server/body-budget.ts). One that comes in one chunk is that chunk.
 */
function readAll(incoming: IncomingRequest, declared: number | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let whole: Buffer | undefined;
    let length = 0;
    // Past the declared length (which the HTTP layer enforces, so never in practice), or none declared.
    let chunks: Buffer[] | undefined;
    const onData = (chunk: Buffer) => {
      if (chunks) chunks.push(chunk);
      else if (first === undefined) first = chunk;
      else if (declared !== undefined && length + chunk.length <= declared) {
        if (whole === undefined) {
          whole = Buffer.allocUnsafeSlow(declared);
          first.copy(whole, 0);
        }
        chunk.copy(whole, length);
      } else chunks = [whole ? whole.subarray(0, length) : first, chunk];
      length += chunk.length;
    };
    const settle = (error?: Error) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', settle);
      incoming.off('close', onClose);
      if (error) reject(error);
      else if (chunks) resolve(Buffer.concat(chunks, length));
      else if (whole) resolve(whole.subarray(0, length));
      else resolve(first ?? Buffer.alloc(0));
    };
    const onEnd = () => settle();
    const onClose = () => settle(new Error('the connection closed before the whole request body arrived'));
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', settle);
    incoming.once('close', onClose);
  });
}

/**
 * The most a body is read into a buffer of its declared length (readAll): a Content-Length alone, before
 * the bytes come, never makes the server set aside more (src/server/body.ts refuses a review body over
 * AMENDER_MAX_BODY_BYTES before reading it; this bounds what any other reader of a request could allow).
 */
const MAX_PREALLOCATED_BYTES = 64 * 2 ** 20;

/** The request's Content-Length, when it has a valid one within MAX_PREALLOCATED_BYTES. */
function declaredLength(incoming: IncomingRequest): number | undefined {
  const length = contentLength(incoming.headers['content-length']);
  // NaN (malformed) fails the comparison.
  return length !== undefined && length <= MAX_PREALLOCATED_BYTES ? length : undefined;
}

async function readStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return Buffer.concat(chunks);
}

export class NodeRequest implements ClientSignalRequest, HeldBodyRequest, AnswerDoneRequest, SlowBodyRequest {
  readonly url: string;
  readonly method: string;
  #incoming: IncomingRequest;
  #headers: LightHeaders | undefined;
  #controller: AbortController | undefined;
  #clientSignal: LightClientSignal | undefined;
  #abortReason: unknown;
  #aborted = false;
  /** The answer is done (written, or the connection gone), and who waits for that. */
  #answerDone = false;
  #answerDoneListener: (() => void) | undefined;
  /** Where a slow body is listed (the server's). */
  #slowRequests: SlowRequests | undefined;
  #stream: ReadableStream<Uint8Array> | undefined;
  #read = false;
  #node: Request | undefined;
  /** Invites the body of a request that waits for `100 Continue` (node-listener.ts); called before any read. */
  #inviteBody: (() => void) | undefined;
  /** Passes on the pieces of the body gathered while it was unread (node-unread-body.ts); called before any read. */
  #releaseBody: (() => void) | undefined;

  /**
   * `url`: the request's absolute URL, already checked (node-request-url.ts); `slowRequests`: where a
   * slow body is listed; `inviteBody`: sends the `100 Continue` an `Expect: 100-continue` request waits for.
   */
  constructor(incoming: IncomingRequest, url: string, slowRequests?: SlowRequests, inviteBody?: () => void) {
    this.#incoming = incoming;
    this.url = url;
    this.#slowRequests = slowRequests;
    this.#inviteBody = inviteBody;
    // HTTP/2 carries :method as the client wrote it; a Web Request writes the standard ones in upper case.
    this.method = normalizeMethod(incoming.method ?? 'GET');
    // Until the body is read (its review may wait for the body budget), its small pieces are gathered, not
    // kept one Buffer each. HTTP/2: the stream's, which the compatibility request reads only once read itself.
    if (this.#hasBody()) this.#releaseBody = gatherUnreadPieces(incoming.httpVersionMajor === 2 ? (incoming as Http2ServerRequest).stream : (incoming as IncomingMessage));
  }

  get headers(): LightHeaders {
    return (this.#headers ??= new LightHeaders(headerPairs(this.#incoming.rawHeaders)));
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  get clientSignal(): LightClientSignal {
    if (this.#clientSignal === undefined) {
      this.#clientSignal = new LightClientSignal();
      if (this.#aborted) this.#clientSignal.abort();
    }
    return this.#clientSignal;
  }

  /** Aborts the signal (the listener calls this when the client went away before its answer). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    this.#clientSignal?.abort();
  }

  /** Runs `listener` once the answer is done (`answerDone`), at once if it is; one listener per request (the review route's). */
  whenAnswerDone(listener: () => void): void {
    if (this.#answerDone) listener();
    else this.#answerDoneListener = listener;
  }

  /** The listener calls this when the response closes: its answer written whole, or its connection gone. */
  answerDone(): void {
    if (this.#answerDone) return;
    this.#answerDone = true;
    const listener = this.#answerDoneListener;
    this.#answerDoneListener = undefined;
    listener?.();
  }

  /** Listed among the server's slow requests (node-slow-requests.ts), which it may end to make room. */
  bodyIsSlow(): void {
    if (!this.#answerDone) this.#slowRequests?.add(this.#incoming);
  }

  #hasBody(): boolean {
    return this.method !== 'GET' && this.method !== 'HEAD';
  }

  /** The body as a stream of the connection's bytes (null for GET and HEAD); reading it uses the body. */
  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#hasBody()) return null;
    if (this.#stream === undefined) {
      if (this.#read) throw unusable();
      this.#releaseBody?.();
      this.#inviteBody?.();
      // Not Readable.toWeb: a chunk per piece delivered let tiny HTTP/2 DATA frames cost ~600 bytes per byte (node-body-stream.ts).
      this.#stream = coalescedBodyStream(this.#incoming as Readable);
    }
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#read || (this.#stream?.locked ?? false);
  }

  bytes(): Promise<Uint8Array> {
    if (!this.#hasBody()) return Promise.resolve(new Uint8Array(0));
    if (this.bodyUsed) return Promise.reject(unusable());
    this.#read = true;
    this.#releaseBody?.();
    this.#inviteBody?.();
    // The stream was asked for but not read: the bytes come through it, as a Web body's would.
    if (this.#stream !== undefined) return readStream(this.#stream);
    return readAll(this.#incoming, declaredLength(this.#incoming)).then((buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
  }

  /**
   * The body's `length` bytes when the connection has delivered them all (HTTP/1.1: a small review comes
   * with its head), marking the body read; undefined, with nothing read, otherwise. Taken from the
   * stream's buffer at once: no stream events to wait for, nor the body timer of src/server/body.ts.
   */
  takeBodyBytes(length: number): Uint8Array | undefined {
    const incoming = this.#incoming;
    if (!this.#hasBody() || this.bodyUsed || incoming.httpVersionMajor === 2) return undefined;
    this.#releaseBody?.();
    // Nobody reads the stream (not flowing), so every byte the parser has passed on is in its buffer,
    // and the parser passes on no more than the Content-Length: `length` bytes there are the body.
    if (incoming.readableFlowing === true || incoming.readableLength !== length) return undefined;
    this.#read = true;
    // Sent unasked (a client may send after a wait), the body still counts as invited: the connection stays in step.
    this.#inviteBody?.();
    const chunk = length === 0 ? null : (incoming.read(length) as Buffer | null);
    // Flowing, the stream ends as soon as the parser has seen the message's end, as after any body read.
    incoming.resume();
    return chunk === null ? new Uint8Array(0) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return ownArrayBuffer(await this.bytes());
  }

  async text(): Promise<string> {
    return decoder.decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(): Promise<Blob> {
    return blobOf(await this.bytes(), this.headers.get('content-type'));
  }

  async formData(): Promise<FormData> {
    return formDataOf(await this.bytes(), this.headers.get('content-type'));
  }

  /** A body read from a connection can be read once: a copy of the request is refused, as for a used body. */
  clone(): never {
    throw new TypeError('Request.clone: the body of a request read from the connection cannot be copied');
  }

  /** Node's Request with the same URL, method and headers (no body: the body stays this one's). */
  toNodeRequest(): Request {
    return (this.#node ??= new (nodeClass('Request'))(this.url, { method: this.method, headers: [...this.headers] }));
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }
}

delegateToNode(NodeRequest.prototype, REQUEST_MEMBERS_OF_NODE, (request) => request.toNodeRequest());
