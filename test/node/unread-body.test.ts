/** The pieces of a body pushed while nobody reads it, gathered into blocks (src/adapters/node-unread-body.ts). */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { gatherUnreadPieces } from '../../src/adapters/node-unread-body.js';

/** A stream whose pieces are pushed from outside, as Node's HTTP layers push a request's body. */
function pushed(): Readable & { chunks(): number } {
  const stream = new Readable({ read() {} }) as Readable & { chunks(): number };
  stream.chunks = () => (stream as unknown as { _readableState: { buffer: { length: number } } })._readableState.buffer.length;
  return stream;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('gatherUnreadPieces', () => {
  it('keeps 100,000 pieces of one byte as a few blocks, then passes them on in order when released', async () => {
    const stream = pushed();
    const release = gatherUnreadPieces(stream);
    const sent: number[] = [];
    let full = false;
    for (let i = 0; i < 100_000; i++) {
      sent.push(i % 251);
      full = !stream.push(Buffer.from([i % 251])) || full;
    }
    // Past 16 KiB gathered the stream says it is full, as Node's own buffer does at its limit.
    expect(full).toBe(true);
    expect(stream.chunks()).toBeLessThanOrEqual(16);
    release();
    stream.push(null);
    expect(stream.chunks()).toBeLessThan(40);
    expect([...(await readAll(stream))]).toEqual(sent);
  });

  it('passes a body in a few pieces, and large pieces, on as they are, after what was gathered before them', async () => {
    const stream = pushed();
    const release = gatherUnreadPieces(stream);
    const large = Buffer.alloc(4096, 7);
    expect(stream.push(large)).toBe(true);
    for (let i = 0; i < 100; i++) stream.push(Buffer.from([1]));
    stream.push(large);
    // At the end, what was gathered goes first.
    for (let i = 0; i < 100; i++) stream.push(Buffer.from([2]));
    stream.push(null);
    const body = await (async () => {
      release();
      return readAll(stream);
    })();
    expect(body).toEqual(Buffer.concat([large, Buffer.alloc(100, 1), large, Buffer.alloc(100, 2)]));
  });

  it('gathers nothing once released', () => {
    const stream = pushed();
    gatherUnreadPieces(stream)();
    for (let i = 0; i < 100; i++) stream.push(Buffer.from([1]));
    expect(stream.chunks()).toBe(100);
  });
});
