/**
 * What the route hands the reviewer as a request body (src/server/body.ts): a small body that is valid
 * UTF-8 as its text (decoded as it is read: cheaper to send to a review worker than bytes), any other as
 * bytes that own their buffer (a structured clone of a view would carry the whole buffer).
 */
import { describe, expect, it } from 'vitest';
import { readBoundedBody } from '../../src/server/body.js';
import { DECODED_ON_READ_BYTES } from '../../src/server/review-body.js';
import { resolveLimits } from '../../src/server/index.js';

const limits = resolveLimits();

/** A request as the Node server's: `bytes()` gives a view into a larger buffer (the connection's chunk). */
function nodeLikeRequest(body: Uint8Array): Request {
  const chunk = new Uint8Array(body.byteLength + 64);
  chunk.set(body, 32);
  const view = chunk.subarray(32, 32 + body.byteLength);
  return { headers: new Headers({ 'content-length': String(body.byteLength) }), body: null, bytes: async () => view } as unknown as Request;
}

/** A short review, padded with spaces to `length` characters (bytes: it is ASCII). */
const review = (length = 0) => {
  const text = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}';
  return text + ' '.repeat(Math.max(0, length - text.length));
};

describe('readBoundedBody', () => {
  it('decodes a small UTF-8 body as it reads it, keeping a byte-order mark for the review to drop', async () => {
    for (const text of [review(), '\ufeff' + review(), 'ünïcödé ✓ 𝄞', review(DECODED_ON_READ_BYTES)]) {
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(DECODED_ON_READ_BYTES);
      const read = await readBoundedBody(nodeLikeRequest(new TextEncoder().encode(text)), limits);
      expect(read).toEqual({ ok: true, body: text });
    }
  });

  it('keeps as bytes of their own a body that is not UTF-8, and one over DECODED_ON_READ_BYTES', async () => {
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const encodedSurrogate = new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]);
    const large = new TextEncoder().encode(review(DECODED_ON_READ_BYTES + 1));
    expect(large.byteLength).toBe(DECODED_ON_READ_BYTES + 1);
    for (const bytes of [notUtf8, encodedSurrogate, large]) {
      const read = await readBoundedBody(nodeLikeRequest(bytes), limits);
      if (!read.ok || typeof read.body === 'string') throw new Error(`expected bytes, got ${JSON.stringify(read).slice(0, 80)}`);
      expect(read.body).toEqual(bytes);
      expect([read.body.byteOffset, read.body.buffer.byteLength]).toEqual([0, bytes.byteLength]);
    }
  });

  it('takes a body its request holds whole after one microtask, and reads it when the request does not hold it', async () => {
    const text = review();
    const asked: number[] = [];
    const holding = (holds: boolean, onTake = () => {}) =>
      ({
        headers: new Headers({ 'content-length': String(text.length) }),
        body: null,
        takeBodyBytes: (length: number) => {
          onTake();
          asked.push(length);
          return holds ? new TextEncoder().encode(text) : undefined;
        },
        bytes: async () => new TextEncoder().encode(`read: ${text}`),
      }) as unknown as Request;
    let takenSync = true;
    const reading = readBoundedBody(holding(true, () => (takenSync = false)), limits);
    // Not asked in the same turn: Node's parser hands the body over after the head's callbacks.
    expect(takenSync).toBe(true);
    expect(await reading).toEqual({ ok: true, body: text });
    expect(await readBoundedBody(holding(false), limits)).toEqual({ ok: true, body: `read: ${text}` });
    expect(asked).toEqual([text.length, text.length]);
  });

  it('reads a Web Request through arrayBuffer(), and a body of unknown length through its stream, the same way', async () => {
    const text = review();
    const declared = new Request('http://x/mutate', { method: 'POST', body: text, headers: { 'content-length': String(text.length) } });
    expect(await readBoundedBody(declared, limits)).toEqual({ ok: true, body: text });
    const chunked = new Request('http://x/mutate', { method: 'POST', body: new Blob([text.slice(0, 10), text.slice(10)]).stream(), duplex: 'half' } as RequestInit);
    expect(await readBoundedBody(chunked, limits)).toEqual({ ok: true, body: text });
    const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
    const chunkedBytes = new Request('http://x/mutate', { method: 'POST', body: new Blob([bytes]).stream(), duplex: 'half' } as RequestInit);
    expect(await readBoundedBody(chunkedBytes, limits)).toEqual({ ok: true, body: bytes });
  });
});
