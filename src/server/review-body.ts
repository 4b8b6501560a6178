/**
 * The form in which a request body reaches the reviewer, once src/server/body.ts has read it: its text
 * or its bytes.
 */
import type { ReviewBody } from './review.js';

/**
 * Bodies up to this size are decoded as they are read; larger ones are decoded where the review is
 * evaluated (a review worker, off the Node server's main thread).
 */
export const DECODED_ON_READ_BYTES = 64 * 1024;

/** Strict, and keeps a leading byte-order mark: reviewBodyText drops one, as it does decoding the bytes. */
const STRICT_UTF8_KEEPING_BOM = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A body as the reviewer gets it: a small body that is valid UTF-8 as its text, any other as bytes that
 * own their buffer. On the Node server the body crosses to a review worker by structured clone, and an
 * ArrayBuffer costs far more to make, on each side, than a short text: copying the 1.8 KB review into
 * one took 2.2–2.7 µs, decoding it 0.3–0.4 µs (bench/JOURNAL.md, "What stop 26 did"). Bytes that are
 * not UTF-8 stay bytes, for reviewBodyText's 400; a view into a larger buffer is copied, or a clone
 * would carry the whole buffer.
 */
export function reviewBodyOf(bytes: Uint8Array): ReviewBody {
  if (bytes.byteLength <= DECODED_ON_READ_BYTES) {
    try {
      return STRICT_UTF8_KEEPING_BOM.decode(bytes);
    } catch {
      // Not UTF-8: answered 400 where the review is evaluated.
    }
  }
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}
