/**
 * re2js matches by simulating the pattern's program over the text in one call that the review guard
 * cannot interrupt: its work grows with program size × text length. A 5,000-character pattern of
 * `[ab]{1,100}` against a 100 KB annotation ran 165 s (a 1,000-character one, 0.5 s), stalling the
 * shared worker far past the review's deadline. A match or replacement whose program size × text length
 * passes REGEX_STEP_LIMIT is now an error of its rule, answered by the policy's failurePolicy; patterns
 * of the usual size still run against any text a review holds.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { REGEX_STEP_LIMIT } from '../../src/kyverno/jmespath/goregexp.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const COSTLY = `${'[ab]{1,100}'.repeat(90)}c`;

function labelFrom(name: string, expression: string) {
  return clusterPolicy(name, [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { out: `{{ to_string(${expression}) }}` } } } } }], { failurePolicy: 'Ignore' });
}

async function run(policies: JsonObject[], text: string) {
  const subject = pod('web', ['c']);
  (subject.metadata as JsonObject).annotations = { text };
  return runKyvernoPolicies(policies.map(compiled), { request: podRequest(subject) });
}

describe('regex cost', () => {
  const text = `${'ab'.repeat(50_000)}dc`;

  for (const fn of ['regex_match', 'regex_replace_all', 'regex_replace_all_literal']) {
    it(`${fn}: a costly pattern over a 100 KB annotation fails its rule; the next policy applies`, async () => {
      const args = fn === 'regex_match' ? '' : ", 'x'";
      const result = await run([labelFrom('a-costly', `${fn}('${COSTLY}', request.object.metadata.annotations.text${args})`), labelFrom('b-plain', "regex_match('^[ab]+dc$', request.object.metadata.annotations.text)")], text);
      const [costly, plain] = result.policies;
      expect(costly).toMatchObject({ policy: 'ClusterPolicy/a-costly', status: 'error' });
      expect(costly.rules[0].message).toContain(`regular expression too costly: a program of`);
      expect(costly.rules[0].message).toContain(`over the limit of ${REGEX_STEP_LIMIT}`);
      expect(plain).toMatchObject({ policy: 'ClusterPolicy/b-plain', status: 'applied' });
      expect(((result.object as JsonObject).metadata as JsonObject).labels).toEqual({ out: 'true' });
    });
  }

  it('the same pattern over a short text still runs', async () => {
    const result = await run([labelFrom('a-costly', `regex_match('${COSTLY}', request.object.metadata.annotations.text)`)], `${'ab'.repeat(50)}c`);
    expect(result.policies[0].status).toBe('applied');
    expect(((result.object as JsonObject).metadata as JsonObject).labels).toEqual({ out: 'true' });
  });
});
