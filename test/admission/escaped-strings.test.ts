/**
 * A review whose strings hold many `\u` escapes is read like any other. Go's encoder writes `<`, `>` and
 * `&` as `\u003c`, `\u003e`, `\u0026`, so a ConfigMap of markup reaches the webhook as six characters per
 * bracket. The exact parser (taken when the review holds an integral float literal such as Go's `1e+21`,
 * or an integer past ±2^53) matched each string with a regular expression that overflowed the stack on
 * about a million escapes: an internal error (HTTP 500) instead of the answer.
 */
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { labelPolicy, podReview } from '../sources/helpers.js';

const { app } = createApp({ policies: fixedPolicySet(buildPolicySet(parseDocuments('p.yaml', labelPolicy('team', 'team', 'a'))), 'test') });

/** The review of a Pod with one annotation of `escapes` escaped brackets and a float written as Go writes 1e21. */
function review(escapes: number): string {
  const text = JSON.stringify(podReview());
  return text.replace('"spec":{', `"spec":{"overhead":{"x":1e+21},`).replace('"labels":{}', `"labels":{},"annotations":{"markup":"${'\\u003c'.repeat(escapes)}"}`);
}

describe('strings with many \\u escapes', () => {
  it('are reviewed, not a 500, when the exact parser reads them', async () => {
    const body = review(1_200_000);
    expect(body.length).toBeLessThan(8 * 1024 * 1024);
    const res = await app.fetch(new Request('https://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { response: { allowed: boolean; patch?: string } };
    expect(reply.response.allowed).toBe(true);
    expect(JSON.parse(Buffer.from(reply.response.patch!, 'base64').toString('utf8'))).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'a' }]);
  });

  it('decode as JSON.parse decodes them, and a bad escape is a parse error', () => {
    const value = parseJson('{"f":1.0,"s":"a\\u003c\\"\\\\\\/\\b\\f\\n\\r\\t\\ud83d\\ude00\\ud800é"}') as { s: string };
    expect(value.s).toBe('a<"\\/\b\f\n\r\t😀\ud800é');
    for (const bad of ['"\\u12"', '"\\x"', '"\\\u0001"', '"a\u0001"', '"\\"', '"abc']) {
      expect(() => parseJson(`{"f":1.0,"s":${bad}}`), bad).toThrow(expect.objectContaining({ name: 'JsonParseError' }));
    }
  });
});
