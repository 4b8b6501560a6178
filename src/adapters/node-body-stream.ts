/**
 * A request body of unknown length (chunked, or HTTP/2 without `content-length`) as a Web stream whose
 * chunks are up to COALESCED_BYTES each, not one chunk per piece the connection delivered.
 *
 * The reader (src/server/body.ts) keeps every chunk until the body ends. Through `Readable.toWeb` alone,
 * each piece became a chunk of its own, copied into an ArrayBuffer of its own: an HTTP/2 client sending DATA
 * frames of one byte (ten bytes on the wire each) cost the server ~600 bytes per byte sent, so 20 MB of
 * such frames over 200 streams took the built server from 70 MB to 1.2 GB RSS. Here the pieces are
 * gathered as they come into chunks of COALESCED_BYTES (a buffer grown by doubling; a larger piece passes
 * on as it is), so what is held is about the bytes received, whatever the framing. The reader sees a body
 * in pieces of 64 KiB: src/server/body.ts checks its limit per chunk (so at most 64 KiB late), and the end
 * of the body, when it comes, passes the rest on at once.
 *
 * Everything else is `Readable.toWeb`'s: backpressure pauses the Node stream, and a cancel (a body over
 * the limit) ends the request the way Node's own adapter does, leaving an HTTP/1.1 connection to answer
 * the 413 (destroying the request ourselves closed the socket under it, and a client still sending an
 * endless chunked body then never stopped).
 */
import { Readable } from 'node:stream';

/** The most one chunk gathers; a piece this large is passed on alone, uncopied. */
const COALESCED_BYTES = 64 * 1024;

export function coalescedBodyStream(incoming: Readable): ReadableStream<Uint8Array> {
  let pending: Uint8Array | undefined;
  let length = 0;
  const flush = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (length === 0) return;
    controller.enqueue(pending!.subarray(0, length));
    pending = undefined;
    length = 0;
  };
  const gather = new TransformStream<Uint8Array, Uint8Array>(
    {
      transform(piece, controller) {
        if (piece.byteLength >= COALESCED_BYTES) {
          flush(controller);
          controller.enqueue(piece);
          return;
        }
        if (length + piece.byteLength > COALESCED_BYTES) flush(controller);
        if (pending === undefined || length + piece.byteLength > pending.byteLength) {
          // Doubling: every byte is copied a bounded number of times.
          const grown = new Uint8Array(Math.min(COALESCED_BYTES, Math.max(256, 2 * (length + piece.byteLength))));
          if (pending !== undefined) grown.set(pending.subarray(0, length));
          pending = grown;
        }
        pending.set(piece, length);
        length += piece.byteLength;
        if (length === COALESCED_BYTES) flush(controller);
      },
      flush,
    },
    { highWaterMark: COALESCED_BYTES, size: (chunk) => chunk.byteLength },
    { highWaterMark: COALESCED_BYTES, size: (chunk) => chunk.byteLength },
  );
  return (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).pipeThrough(gather);
}
