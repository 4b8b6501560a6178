import { utf8Length } from '../json/index.js';
import type { Limits } from './limits.js';
import type { ReviewBody } from './review.js';
import { reviewBodyOf } from './review-body.js';

export type BodyResult =
  | { ok: true; body: ReviewBody }
  | { ok: false; status: 400 | 408 | 413 | 499; message: string };

const TIMED_OUT = Symbol('timed out');
/** A Content-Length value (optional whitespace around it is the HTTP layer's to strip, and allowed). */
const DECIMAL = /^\s*\d+\s*$/;

/** A Content-Length header's value as a number: undefined when there is none, NaN when it is not one. */
export function contentLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  return DECIMAL.test(value) ? Number(value) : NaN;
}

/**
 * Reads a request body without ever holding more than `maxBodyBytes` of it: a declared
 * Content-Length over the limit is refused before reading, and a streamed body is cancelled as soon as it
 * passes the limit. A body that does not arrive within `bodyTimeoutMs` is cancelled too, so a client that
 * stops sending cannot hold a handler forever on any platform.
 *
 * A body with a declared Content-Length within the limit (what the API server sends) is read whole with
 * `bytes()` (or `arrayBuffer()`): the HTTP layer delivers exactly that many bytes (Node's HTTP/1.1
 * parser and HTTP/2's content-length check), and on Node the adapter then reads the socket directly
 * instead of building a Web stream for it, which cost more than parsing the review; a body that came with
 * its request's head is taken at once (HeldBodyRequest). Only a body of unknown length (chunked) goes
 * through the stream reader, which counts as it reads. A body the platform holds whole as text
 * (TextBodyRequest) is taken as that text. What the reviewer gets is review-body.ts's.
 */
export async function readBoundedBody(request: Request, limits: Limits, slow?: SlowBody): Promise<BodyResult> {
  const header = request.headers.get('content-length');
  const declared = contentLength(header);
  if (declared !== undefined) {
    if (Number.isNaN(declared)) return { ok: false, status: 400, message: `invalid Content-Length header ${JSON.stringify(header)}` };
    if (declared > limits.maxBodyBytes) return tooLarge(limits);
  }
  const text = (request as Partial<TextBodyRequest>).takeBodyText?.();
  if (text !== undefined) return withinLimit(text, limits);
  if (declared !== undefined) {
    const held = await heldBody(request, declared);
    return held === undefined ? readDeclared(request, limits, slow) : wholeBody(held, limits);
  }
  if (request.body === null) return { ok: true, body: new Uint8Array(0) };
  return readStream(request.body, limits, slow);
}

/**
 * Told when a body is still arriving `afterMs` after its reading began (the reading goes on, up to the body
 * timeout): the body budget stops counting the bytes it has not received, and the adapter may end the
 * request to make room (routes/body-in-budget.ts).
 */
export interface SlowBody {
  afterMs: number;
  then: () => void;
}

/**
 * The bytes to hold for a request's body before reading it (body-budget.ts): its Content-Length, or the
 * most a body may be when it has none (chunked: the reader counts it as it comes); 0 for a Content-Length
 * that readBoundedBody refuses before reading anything (malformed, or over the limit).
 */
export function bodyBytesToHold(request: Request, limits: Limits): number {
  const declared = contentLength(request.headers.get('content-length'));
  if (declared === undefined) return limits.maxBodyBytes;
  // NaN (malformed) fails the comparison: nothing to hold.
  return declared <= limits.maxBodyBytes ? declared : 0;
}

/** The length of a body read (in UTF-16 units for a body held as text: what its string takes, near enough). */
export function bodySize(body: ReviewBody): number {
  return typeof body === 'string' ? body.length : body.byteLength;
}

/**
 * A request whose body the platform holds whole as text (the Lambda adapter's, for an event body that is
 * not base64): taking the text spares encoding it to bytes here and decoding them back for the review.
 */
export interface TextBodyRequest {
  /** The body's text, marking the body read; undefined (nothing read) when it is not text held whole. */
  takeBodyText(): string | undefined;
}

/**
 * A request whose body may already be whole in memory (the Node server's, most often): taken at once,
 * without waiting on the connection or setting the body timer.
 */
export interface HeldBodyRequest {
  /** The body's `length` bytes when they are all here, marking the body read; undefined (nothing read) otherwise. */
  takeBodyBytes(length: number): Uint8Array | undefined;
}

/**
 * The body of a HeldBodyRequest when it came with the request's head. Asked after one microtask: Node's
 * HTTP parser hands the body over after the head's callbacks, and a body that came with the head is in
 * the request's stream by then (not before).
 */
async function heldBody(request: Request, length: number): Promise<Uint8Array | undefined> {
  const take = (request as Partial<HeldBodyRequest>).takeBodyBytes;
  if (take === undefined) return undefined;
  await null;
  return take.call(request, length);
}

/** A body held as text, within the limit in UTF-8 bytes (counted only when its length could pass it). */
function withinLimit(text: string, limits: Limits): BodyResult {
  if (text.length * 3 > limits.maxBodyBytes && utf8Length(text) > limits.maxBodyBytes) return tooLarge(limits);
  return { ok: true, body: text };
}

/**
 * One timer per body: `slow.then()` at `slow.afterMs` when that comes first, `timedOut()` at the body
 * timeout. Returns what clears it.
 */
function bodyTimer(limits: Limits, slow: SlowBody | undefined, timedOut: () => void): () => void {
  let timer: ReturnType<typeof setTimeout>;
  if (slow && slow.afterMs < limits.bodyTimeoutMs) {
    timer = setTimeout(() => {
      slow.then();
      timer = setTimeout(timedOut, limits.bodyTimeoutMs - slow.afterMs);
    }, slow.afterMs);
  } else timer = setTimeout(timedOut, limits.bodyTimeoutMs);
  return () => clearTimeout(timer);
}

/**
 * `reading`, or TIMED_OUT once the body timeout has passed first: one timer and one promise per body,
 * cleared as soon as the body is in.
 */
function withinBodyTimeout<T>(reading: Promise<T>, limits: Limits, slow: SlowBody | undefined): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    const clear = bodyTimer(limits, slow, () => resolve(TIMED_OUT));
    reading.then(
      (value) => {
        clear();
        resolve(value);
      },
      (err: unknown) => {
        clear();
        reject(err);
      },
    );
  });
}

async function readDeclared(request: Request, limits: Limits, slow: SlowBody | undefined): Promise<BodyResult> {
  let bytes: Uint8Array | typeof TIMED_OUT;
  try {
    // After a timeout nobody waits for the reading; the connection's end settles it.
    bytes = await withinBodyTimeout(bytesOf(request), limits, slow);
  } catch (err) {
    return unreadable(err);
  }
  if (bytes === TIMED_OUT) return timeout(limits);
  return wholeBody(bytes, limits);
}

/**
 * A body read whole as the reviewer gets it. Checked against the limit again: a platform that does not
 * hold the client to its Content-Length still cannot pass it unnoticed.
 */
function wholeBody(bytes: Uint8Array, limits: Limits): BodyResult {
  return bytes.byteLength > limits.maxBodyBytes ? tooLarge(limits) : { ok: true, body: reviewBodyOf(bytes) };
}

/** The body's bytes: by `bytes()` where the request has it (the Node server's: no copy), else `arrayBuffer()`. */
function bytesOf(request: Request): Promise<Uint8Array> {
  const withBytes = request as Request & { bytes?: () => Promise<Uint8Array> };
  if (typeof withBytes.bytes === 'function') return withBytes.bytes();
  return request.arrayBuffer().then((buffer) => new Uint8Array(buffer));
}

async function readStream(body: ReadableStream<Uint8Array>, limits: Limits, slow: SlowBody | undefined): Promise<BodyResult> {
  const reader = body.getReader();
  // One timer for the whole body (not one per chunk): most bodies arrive in a chunk or two.
  let clear!: () => void;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    clear = bodyTimer(limits, slow, () => resolve(TIMED_OUT));
  });
  let received = 0;
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timedOut]);
      if (chunk === TIMED_OUT) return timeout(limits);
      if (chunk.done) break;
      received += chunk.value.byteLength;
      if (received > limits.maxBodyBytes) return tooLarge(limits);
      chunks.push(chunk.value);
    }
  } catch (err) {
    return unreadable(err);
  } finally {
    clear();
    // Releases the connection's remaining bytes (no-op once the stream has ended).
    reader.cancel().catch(() => {});
  }
  if (chunks.length === 1) return { ok: true, body: reviewBodyOf(chunks[0]) };
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, body: reviewBodyOf(bytes) };
}

/** The connection failed before the whole body arrived: its client is gone (or can no longer be answered). */
function unreadable(err: unknown): BodyResult {
  return { ok: false, status: 499, message: `request body could not be read: ${(err as Error).message}: the client went away` };
}

function timeout(limits: Limits): BodyResult {
  return { ok: false, status: 408, message: `request body not received within ${limits.bodyTimeoutMs} ms` };
}

function tooLarge(limits: Limits): BodyResult {
  return { ok: false, status: 413, message: `request body exceeds the limit of ${limits.maxBodyBytes} bytes` };
}
