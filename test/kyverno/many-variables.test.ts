/**
 * A string with many `{{ }}` variables is substituted in one pass per scan, at admission and in the
 * load-time check of Kyverno's known variables. Kyverno replaces the first occurrence of each variable's
 * text, one variable at a time, which lands where the scan found it; done literally, that copies the
 * whole text once per variable: a 1.7 MB annotation template of 50,000 variables took 45 s to load and as
 * long again at each admission (20,000 took 17 s in all), stalling the shared service. The cases below
 * pin the places replaced where that equivalence could be doubted (repeated texts, adjacent variables
 * whose scan skips one, escapes, nesting), then the many-variable policy is loaded and applied.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const NAME = '{{ request.object.metadata.name }}';
const LABEL = '{{ request.object.metadata.labels.app }}';

async function annotationFrom(template: string): Promise<JsonValue> {
  const policy = clusterPolicy('a-template', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { out: template } } } } }]);
  const subject = pod('web', ['c'], {});
  (subject.metadata as JsonObject).labels = { app: 'shop', web: 'by-name' };
  const result = await runKyvernoPolicies([compiled(policy)], { request: podRequest(subject) });
  expect(result.policies[0].rules[0].status, result.policies[0].rules[0].message).toBe('applied');
  return ((result.object as JsonObject).metadata as JsonObject).annotations as JsonValue;
}

describe('each variable is replaced where it was found', () => {
  const cases: [string, string, string][] = [
    ['the same variable repeated', `${NAME} ${NAME}/${NAME}`, 'web web/web'],
    ['adjacent variables (the second is found by the next scan)', `${NAME}${LABEL}${NAME}${LABEL}`, 'webshopwebshop'],
    ['an escaped copy before the variable', `\\${NAME} ${NAME}`, `${NAME} web`],
    ['an escaped copy after the variable', `${NAME} \\${NAME}`, `web ${NAME}`],
    ['a nested variable', `{{ request.object.metadata.labels."${NAME}" }}-${NAME}`, 'by-name-web'],
    ['repeated text around a nested one', `${NAME}{{ request.object.metadata.labels."${NAME}" }}${NAME}`, 'webby-nameweb'],
  ];
  for (const [what, template, expected] of cases) {
    it(what, async () => {
      expect(await annotationFrom(template)).toEqual({ out: expected });
    });
  }
});

describe('a string of 50,000 variables', () => {
  const template = `${NAME}-`.repeat(50_000);
  const yaml = `---\n${JSON.stringify(clusterPolicy('a-many', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { out: template } } } } }]))}\n`;

  it('loads (the known-variable check scans it) and applies at admission', async () => {
    const set = policySetFrom(yaml);
    expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
    const reply = (await answerReview(reviewOf(pod('web', ['c'])) as JsonValue, set)).body as unknown as { response: { allowed: boolean; patch?: string } };
    expect(reply.response.allowed).toBe(true);
    const patch = JSON.parse(Buffer.from(reply.response.patch ?? 'W10=', 'base64').toString('utf8')) as { path: string; value: JsonObject }[];
    expect(patch).toEqual([{ op: 'add', path: '/metadata/annotations', value: { out: 'web-'.repeat(50_000) } }]);
  });
});
