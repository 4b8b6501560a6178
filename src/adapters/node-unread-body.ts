/**
 * A request body not yet read — its review waits, unread, for room in the body budget
 * (src/server/body-budget.ts) — gathered into blocks as the connection delivers it, instead of waiting in
 * Node's readable buffer as one Buffer per piece.
 *
 * Node pushes every piece it receives into the request's stream (HTTP/1.1: the IncomingMessage, each
 * chunk of a chunked body; HTTP/2: the Http2Stream, each DATA frame) whether anyone reads or not, up to
 * the stream's high-water mark and, over HTTP/2, the rest of the stream's flow-control window, both
 * counted in bytes. Pieces of one byte therefore cost a Buffer each: measured on the built server, 32
 * HTTP/2 streams waiting for the budget with their 64 KiB windows sent a byte a frame took 277 MB of RSS
 * on Node 20, 395 MB on Node 24 (~9–12 MB a stream: gigabytes for the 256 that may wait), and 32 HTTP/1.1
 * requests sent chunks of one byte 250 MB and 793 MB (test/reliability/waiting-body-pieces.test.ts); with
 * this, ~40 MB (the frames' buffers until collected) and 4–10 MB. Here, once a body has come in more than
 * SMALL_PIECES_PASSED small pieces, its further small pieces are copied into blocks (grown by doubling up
 * to BLOCK_BYTES), so an unread body holds about its bytes whatever its framing; once GATHERED_BYTES are
 * gathered the stream reports itself full, so Node stops reading the socket (HTTP/1.1) or acknowledging
 * the stream's data (HTTP/2), as it does at its high-water mark: what arrives after is what flow control
 * still lets through (a window, a socket read), gathered too.
 *
 * The blocks are passed on, in order, before anything after them: when the body is first read (`release`,
 * which the request calls before any read), when a large piece comes, and at the body's end. A body that
 * comes in a few pieces, or in large ones (every honest client: the API server writes DATA frames of up to
 * 16 KiB), passes through untouched. The stream's `push` is wrapped, on this stream only: HTTP/1.1's parser
 * and HTTP/2's session push through it. Were a Node version to push by another way, pieces would merely
 * wait in its buffer as before.
 */
import type { Readable } from 'node:stream';

/** A piece at least this large is passed on as it is. */
const SMALL_PIECE_BYTES = 1024;
/** Small pieces passed on as they are before gathering starts: a body in a few pieces costs nothing more. */
const SMALL_PIECES_PASSED = 16;
/** The largest block gathered pieces are copied into. */
const BLOCK_BYTES = 16 * 1024;
/** Gathered (with what Node's buffer holds) past this, the stream says it is full (see above). */
const GATHERED_BYTES = 16 * 1024;

type Push = (chunk: unknown, encoding?: BufferEncoding) => boolean;

/**
 * Gathers the small pieces pushed into `stream` while nobody reads it; returns `release`, which passes
 * on what was gathered and lets every later piece through as it is. Call it before reading the stream.
 */
export function gatherUnreadPieces(stream: Readable): () => void {
  const push = stream.push as Push;
  let released = false;
  let smallPieces = 0;
  const blocks: Buffer[] = [];
  let block: Buffer | undefined;
  let used = 0;
  let gathered = 0;

  const passOn = (): void => {
    if (block !== undefined) blocks.push(block.subarray(0, used));
    block = undefined;
    used = 0;
    gathered = 0;
    if (!stream.destroyed) for (const piece of blocks) push.call(stream, piece);
    blocks.length = 0;
  };

  const gather = (piece: Uint8Array): void => {
    let at = 0;
    while (at < piece.byteLength) {
      if (block === undefined || used === block.byteLength) {
        if (block !== undefined && block.byteLength === BLOCK_BYTES) {
          blocks.push(block);
          block = undefined;
          used = 0;
        }
        // Doubling within a block: every byte is copied a bounded number of times.
        const grown = Buffer.allocUnsafeSlow(Math.min(BLOCK_BYTES, Math.max(256, 2 * (used + piece.byteLength - at))));
        if (block !== undefined) block.copy(grown, 0, 0, used);
        block = grown;
      }
      const n = Math.min(piece.byteLength - at, block.byteLength - used);
      block.set(piece.subarray(at, at + n), used);
      used += n;
      at += n;
    }
    gathered += piece.byteLength;
  };

  stream.push = function (this: Readable, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (!released && chunk instanceof Uint8Array && chunk.byteLength < SMALL_PIECE_BYTES && ++smallPieces > SMALL_PIECES_PASSED) {
      gather(chunk);
      return gathered + stream.readableLength < GATHERED_BYTES;
    }
    if (gathered > 0) passOn();
    return push.call(this, chunk, encoding);
  };

  return () => {
    if (released) return;
    released = true;
    if (gathered > 0) passOn();
  };
}
