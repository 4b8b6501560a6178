/**
 * A large set's documents are encoded for the review workers before the set is applied, a run of
 * documents at a time with the event loop turning in between (ReviewPool.encodeAhead), and every worker,
 * the first too, gets that encoding. Before, the hand-over cloned the documents for the first worker and
 * serialized them for the others at once: the first serialization of fresh documents is the slow one, and
 * with 40 CRDs of 590 KB it held the Node server's main thread 0.5-1.2 s at the end of the load, probes
 * and reviews unanswered. Counted, not timed: the turns a setImmediate ticker gets, the encodings made at
 * the hand-over.
 */
import { describe, expect, it, vi } from 'vitest';
import { decodeInputs, encodeInputs, encodeInputsInSlices } from '../../src/adapters/pool/encoded-set.js';
import { buildPolicySet, parseDocuments, type ParsedSource } from '../../src/policyset/index.js';
import { createApp } from '../../src/server/index.js';
import { labelPolicy } from '../reliability/helpers/label-policy.js';
import { eventLoopTicker } from '../sources/event-loop-ticker.js';
import { post, testPools } from './pool-harness.js';

const pool = testPools();

/** The label policy and `n` ConfigMaps of about 700 bytes each (params nothing reads). */
function largeSet(n: number): ParsedSource[] {
  const configMaps = Array.from({ length: n }, (_, i) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}, namespace: shop}\ndata: {text: "${'x'.repeat(640)}"}\n`).join('');
  return [parseDocuments('policy.yaml', labelPolicy('ahead', 'team', 1)), parseDocuments('params.yaml', configMaps)];
}

describe('a set encoded for the review workers', () => {
  it('decodes to the same sources, at once or in slices', async () => {
    const inputs: ParsedSource[] = [
      ...largeSet(50),
      { source: 'empty.yaml', documents: [], problems: [{ source: 'empty.yaml', index: 0, path: '', message: 'm', effect: 'ignored' }] },
      { source: 'list.yaml', documents: [{ source: 'list.yaml', index: 0, item: 1, value: { kind: 'ConfigMap', n: -0, big: 2 ** 60 } }], problems: [], validatedAtBuild: true },
    ];
    expect(decodeInputs(encodeInputs(inputs))).toEqual(inputs);
    let pauses = 0;
    expect(decodeInputs(await encodeInputsInSlices(inputs, async () => void pauses++))).toEqual(inputs);
  });

  it('lets the event loop turn while a large set is encoded ahead, and no worker gets it encoded at the hand-over', async () => {
    const encode = vi.fn(encodeInputs);
    const reviews = pool({ workers: 2, staggerMs: 0, encodeSet: encode });
    const inputs = largeSet(3000);
    const set = buildPolicySet(inputs);
    // A clock on which each reading is 5 ms later: every run of the encoding takes a slice of it, whatever
    // the machine. On the real one the turns counted were the machine's speed: on a fast moment 3,000 small
    // documents serialized in runs doubling from 1 to 2,048 within one 8 ms slice, and the ticker got 0.
    const realNow = performance.now.bind(performance);
    let later = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + (later += 5));
    const t = eventLoopTicker();
    try {
      expect(await reviews.encodeAhead(inputs, { bytes: 2_200_000, signal: new AbortController().signal })).toBe(true);
    } finally {
      t.stop();
      clock.mockRestore();
    }
    // Before: nothing encoded ahead; the hand-over below encoded at once (one clone, one encoding).
    expect(t.turns()).toBeGreaterThanOrEqual(3);
    const state = { set, inputs, generation: 1, source: 'test', sourceErrors: [] };
    reviews.prepare('default', state);
    expect(encode).not.toHaveBeenCalled();
    const amender = createApp({ policies: () => state, reviewer: reviews.reviewer });
    for (const res of await Promise.all([post(amender), post(amender), post(amender), post(amender)])) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { response: { patch?: string } };
      expect(Buffer.from(body.response.patch!, 'base64').toString()).toContain('team');
    }
    expect(encode).not.toHaveBeenCalled();
  }, 60_000);

  it('stops at the next run when its refresh is aborted', async () => {
    const reviews = pool({ workers: 1 });
    const inputs = largeSet(3000);
    const stop = new AbortController();
    const encoding = reviews.encodeAhead(inputs, { bytes: 2_200_000, signal: stop.signal });
    stop.abort(new Error('the refresher was stopped'));
    await expect(encoding).rejects.toThrow('the refresher was stopped');
    // A set under ENCODE_AHEAD_BYTES is left to the hand-over: nothing encoded, nothing held.
    expect(await reviews.encodeAhead(inputs, { bytes: 1000, signal: new AbortController().signal })).toBe(false);
  }, 60_000);
});
