/** A review holding a number past the double range is a 400 like any other malformed JSON, not a 500 from an engine. */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { labelPolicy, podReview } from '../sources/helpers.js';

const { app } = createApp({ policies: fixedPolicySet(buildPolicySet(parseDocuments('p.yaml', labelPolicy('team', 'team', 'a'))), 'test') });

async function mutate(body: string): Promise<{ status: number; message: string }> {
  const res = await app.fetch(new Request('https://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  const reply = (await res.json()) as { message?: string };
  return { status: res.status, message: reply.message ?? '' };
}

/** The review of a Pod whose spec.priority is written as `literal`. */
const withPriority = (literal: string) => JSON.stringify(podReview()).replace('"spec":{', `"spec":{"priority":${literal},`);

describe('POST /mutate: a number past the double range', () => {
  it('answers 400 naming the number, for an exponent and for a million-digit integer', async () => {
    expect(await mutate(withPriority('1e999'))).toEqual({ status: 400, message: expect.stringMatching(/^malformed JSON: Number 1e999 is out of the range of a double at position \d+$/) });
    const long = await mutate(withPriority(`1${'0'.repeat(999_999)}`));
    expect(long).toEqual({ status: 400, message: expect.stringMatching(/^malformed JSON: Number 1000000000000000… \(1000000 characters\) is out of the range of a double/) });
  });

  it('still reviews an underflow (read as 0, as Go reads it) and an ordinary priority', async () => {
    for (const literal of ['1e-400', '1000']) {
      const res = await app.fetch(new Request('https://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: withPriority(literal) }));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { response: { allowed: boolean } }).response.allowed).toBe(true);
    }
  });
});
