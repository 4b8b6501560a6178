/**
 * A request body of unknown length (chunked, or HTTP/2 without `content-length`) as a Web stream whose
 * chunks are COALESCED_BYTES each (the last one what is left at the end), not one chunk per piece the
 * connection delivered.
 *
 * The reader (src/server/body.ts) keeps every chunk until the body ends. With Node's `Readable.toWeb`, each
 * piece became a chunk of its own, copied into an ArrayBuffer of its own: an HTTP/2 client sending DATA
 * frames of one byte (ten bytes on the wire each) cost the server ~600 bytes per byte sent, so 20 MB of
 * such frames over 200 streams took the built server from 70 MB to 1.2 GB RSS. Here a piece smaller than
 * COALESCED_BYTES is copied into a buffer (grown by doubling), which becomes one chunk when full or when the
 * body ends; a larger piece is passed on as it is. What is held is then about the bytes received,
 * whatever the framing. The reader sees a body in pieces of 64 KiB: src/server/body.ts reads a body whole
 * (its limit is checked per chunk, so at most 64 KiB late; its timers are its own), and the end of the
 * body, when it comes, is passed on at once.
 *
 * The rest is as `Readable.toWeb`: backpressure pauses the Node stream, cancelling destroys it, an end
 * closes the Web stream and an error or a close before the end errors it.
 */
import { finished, type Readable } from 'node:stream';

/** The most one chunk gathers; a piece this large is passed on alone, uncopied. */
const COALESCED_BYTES = 64 * 1024;

/** Queued bytes beyond which the Node stream is paused until the reader asks for more. */
const HIGH_WATER_MARK = 64 * 1024;

export function coalescedBodyStream(incoming: Readable): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let pending: Buffer | undefined;
  let length = 0;
  let settled = false;

  const enqueue = (chunk: Uint8Array) => {
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
  };
  const flush = () => {
    if (length === 0 || settled) return;
    const chunk = new Uint8Array(pending!.buffer, pending!.byteOffset, length);
    pending = undefined;
    length = 0;
    enqueue(chunk);
  };
  const onData = (piece: Buffer) => {
    if (settled) return;
    if (piece.length >= COALESCED_BYTES) {
      flush();
      enqueue(new Uint8Array(piece.buffer, piece.byteOffset, piece.length));
      return;
    }
    if (length + piece.length > COALESCED_BYTES) flush();
    if (pending === undefined || length + piece.length > pending.length) {
      // Doubling: every byte is copied a bounded number of times.
      const grown = Buffer.allocUnsafeSlow(Math.min(COALESCED_BYTES, Math.max(256, 2 * (length + piece.length))));
      if (pending !== undefined) pending.copy(grown, 0, 0, length);
      pending = grown;
    }
    piece.copy(pending, length);
    length += piece.length;
    if (length === COALESCED_BYTES) flush();
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        incoming.on('data', onData);
        finished(incoming, (err) => {
          incoming.off('data', onData);
          if (settled) return;
          if (err) {
            settled = true;
            pending = undefined;
            controller.error(err);
            return;
          }
          flush();
          settled = true;
          controller.close();
        });
      },
      pull() {
        incoming.resume();
      },
      cancel(reason) {
        settled = true;
        pending = undefined;
        incoming.off('data', onData);
        incoming.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
}
