/**
 * A review's body crosses to a pool worker as its text when it is small and UTF-8 (decoded as it is read,
 * src/server/body.ts), otherwise as bytes decoded there (src/server/review.ts answerReviewBody): bodies
 * that are not UTF-8, blank, not JSON, with byte-order marks, or larger than DECODED_ON_READ_BYTES get the
 * same answers through the pool as in-process, and a review's reply is the same either way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewPool, workerEntryBeside } from '../../src/adapters/pool/index.js';
import { createApp, type PolicySetState } from '../../src/server/index.js';
import { DECODED_ON_READ_BYTES } from '../../src/server/review-body.js';
import { ROOT } from '../node/built.js';
import { labelPolicy, refresherState } from '../reliability/helpers/label-policy.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

let pool: ReviewPool;
beforeAll(async () => {
  pool = new ReviewPool({ workers: 1, heapMb: 256, graceMs: 500, queueLimit: 8, entry: await workerEntryBeside(import.meta.url) });
}, 60_000);
afterAll(() => pool.close());

function state(): PolicySetState {
  return refresherState(labelPolicy('bytes', 'bytes', 1));
}

async function answer(app: ReturnType<typeof createApp>, body: Uint8Array, chunked = false): Promise<{ status: number; json: unknown }> {
  // A stream body has no Content-Length: the route reads it as chunks.
  const payload = chunked ? new Blob([body]).stream() : body;
  const res = await app.app.fetch(new Request('http://x/mutate', { method: 'POST', body: payload, headers: { 'content-type': 'application/json' }, ...(chunked ? { duplex: 'half' } : {}) } as RequestInit));
  return { status: res.status, json: await res.json() };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
/** The review with whitespace after it, past `bytes`. */
const padded = (bytes: number) => REVIEW + ' '.repeat(bytes - REVIEW.length + 1);

describe('review bodies as bytes', () => {
  it('answers the same through the pool as in-process', { timeout: 60_000 }, async () => {
    const s = state();
    const inProcess = createApp({ policies: () => s });
    const pooled = createApp({ policies: () => s, reviewer: pool.reviewer });
    const bodies: [string, Uint8Array][] = [
      ['a review', new TextEncoder().encode(REVIEW)],
      ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
      ['blank', new TextEncoder().encode(' \n\t\u00a0')],
      ['not JSON', new TextEncoder().encode('{"apiVersion":')],
      ['a review after a byte-order mark', utf8('\ufeff' + REVIEW)],
      ['a review after two byte-order marks', utf8('\ufeff\ufeff' + REVIEW)],
      ['a review larger than DECODED_ON_READ_BYTES', utf8(padded(DECODED_ON_READ_BYTES))],
      ['not UTF-8, larger than DECODED_ON_READ_BYTES', new Uint8Array([...utf8(padded(DECODED_ON_READ_BYTES)), 0xff])],
    ];
    for (const [what, body] of bodies) {
      for (const chunked of [false, true]) {
        const [a, b] = [await answer(inProcess, body, chunked), await answer(pooled, body, chunked)];
        expect(b, `${what}${chunked ? ', chunked' : ''}`).toEqual(a);
      }
    }
    expect((await answer(pooled, bodies[0][1])).status).toBe(200);
    const notUtf8 = await answer(pooled, bodies[1][1]);
    expect(notUtf8.status).toBe(400);
    expect(JSON.stringify(notUtf8.json)).toContain('request body is not valid UTF-8');
    expect(JSON.stringify((await answer(pooled, bodies[2][1])).json)).toContain('empty request body');
    // One byte-order mark is dropped, as decoding the bytes does; a second is not JSON.
    expect((await answer(pooled, bodies[4][1])).status).toBe(200);
    expect(JSON.stringify((await answer(pooled, bodies[5][1])).json)).toContain('malformed JSON');
    expect((await answer(pooled, bodies[6][1])).status).toBe(200);
    expect(JSON.stringify((await answer(pooled, bodies[7][1])).json)).toContain('request body is not valid UTF-8');
  });
});
