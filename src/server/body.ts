import type { Limits } from './limits.js';

export type BodyResult =
  | { ok: true; text: string }
  | { ok: false; status: 400 | 408 | 413; message: string };

const TIMED_OUT = Symbol('timed out');
/** A Content-Length value (optional whitespace around it is the HTTP layer's to strip, and allowed). */
const DECIMAL = /^\s*\d+\s*$/;

/**
 * Reads a request body as UTF-8 text without ever holding more than `maxBodyBytes` of it: a declared
 * Content-Length over the limit is refused before reading, and a streamed body is cancelled as soon as it
 * passes the limit. A body that does not arrive within `bodyTimeoutMs` is cancelled too, so a client that
 * stops sending cannot hold a handler forever on any platform.
 *
 * A body with a declared Content-Length within the limit (what the API server sends) is read whole with
 * `arrayBuffer()`: the HTTP layer delivers exactly that many bytes (Node's HTTP/1.1 parser and HTTP/2's
 * content-length check), and on Node the adapter then reads the socket directly instead of building a
 * Web stream for it, which cost more than parsing the review. Only a body of unknown length (chunked)
 * goes through the stream reader, which counts as it reads.
 */
export async function readBoundedBody(request: Request, limits: Limits): Promise<BodyResult> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (!DECIMAL.test(declared)) return { ok: false, status: 400, message: `invalid Content-Length header ${JSON.stringify(declared)}` };
    if (Number(declared) > limits.maxBodyBytes) return tooLarge(limits);
    return readDeclared(request, limits);
  }
  if (request.body === null) return { ok: true, text: '' };
  return readStream(request.body, limits);
}

/**
 * `reading`, or TIMED_OUT once the body timeout has passed first: one timer and one promise per body,
 * cleared as soon as the body is in.
 */
function withinBodyTimeout<T>(reading: Promise<T>, limits: Limits): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), limits.bodyTimeoutMs);
    reading.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

async function readDeclared(request: Request, limits: Limits): Promise<BodyResult> {
  let bytes: ArrayBuffer | typeof TIMED_OUT;
  try {
    // After a timeout nobody waits for the reading; the connection's end settles it.
    bytes = await withinBodyTimeout(request.arrayBuffer(), limits);
  } catch (err) {
    return unreadable(err);
  }
  if (bytes === TIMED_OUT) return timeout(limits);
  // A platform that does not hold the client to its Content-Length still cannot pass the limit unnoticed.
  if (bytes.byteLength > limits.maxBodyBytes) return tooLarge(limits);
  try {
    return { ok: true, text: STRICT_UTF8.decode(bytes) };
  } catch {
    return notUtf8();
  }
}

/** Fatal on malformed input; a BOM is dropped, as the streaming decoder does. Stateless between calls. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

async function readStream(body: ReadableStream<Uint8Array>, limits: Limits): Promise<BodyResult> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // One timer for the whole body (not one per chunk): most bodies arrive in a chunk or two.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), limits.bodyTimeoutMs);
  });
  const clear = () => clearTimeout(timer);
  let received = 0;
  let text = '';
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timedOut]);
      if (chunk === TIMED_OUT) return timeout(limits);
      if (chunk.done) break;
      received += chunk.value.byteLength;
      if (received > limits.maxBodyBytes) return tooLarge(limits);
      const piece = decode(decoder, chunk.value);
      if (piece === undefined) return notUtf8();
      text += piece;
    }
    const rest = decode(decoder);
    if (rest === undefined) return notUtf8();
    text += rest;
  } catch (err) {
    return unreadable(err);
  } finally {
    clear();
    // Releases the connection's remaining bytes (no-op once the stream has ended).
    reader.cancel().catch(() => {});
  }
  return { ok: true, text };
}

/** The decoded text, or undefined when the bytes are not UTF-8 (`chunk` undefined flushes). */
function decode(decoder: InstanceType<typeof TextDecoder>, chunk?: Uint8Array): string | undefined {
  try {
    return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
  } catch {
    return undefined;
  }
}

function notUtf8(): BodyResult {
  return { ok: false, status: 400, message: 'request body is not valid UTF-8' };
}

function unreadable(err: unknown): BodyResult {
  return { ok: false, status: 400, message: `request body could not be read: ${(err as Error).message}` };
}

function timeout(limits: Limits): BodyResult {
  return { ok: false, status: 408, message: `request body not received within ${limits.bodyTimeoutMs} ms` };
}

function tooLarge(limits: Limits): BodyResult {
  return { ok: false, status: 413, message: `request body exceeds the limit of ${limits.maxBodyBytes} bytes` };
}
