/**
 * A resource nested as deep as a review may be (the server parses up to 1000 levels) is merged by a
 * patchStrategicMerge rule like any other: the rule's overlay touches only `metadata`, yet the merge walks
 * the untouched subtrees too (kyaml merges their duplicate list keys). Before, that walk took four stack
 * frames per level and overflowed at about 985 levels from an empty stack — fewer below the server — so
 * every patchStrategicMerge policy failed ("nested too deeply to process") on such a custom resource, and
 * a failurePolicy Fail one denied it, while Kyverno merges it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DEPTH, heightUpTo, type JsonValue } from '../../src/json/index.js';
import { answerReviewText } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const POLICIES = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: label}
spec:
  rules:
    - name: owner
      match: {any: [{resources: {kinds: [example.com/v1/Widget]}}]}
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              owner: team-a
    - name: size
      match: {any: [{resources: {kinds: [example.com/v1/Widget]}}]}
      mutate:
        patchStrategicMerge:
          spec:
            +(size): 1
`;

/** A Widget whose `spec.deep` nests so that the whole review is `height` levels deep. */
function deepWidget(height: number): Record<string, unknown> {
  const widget = (deep: JsonValue) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { deep } });
  // review → request → object → spec → deep: the levels above the chain.
  const above = heightUpTo(reviewOf(widget({})) as JsonValue, 5000) - 1;
  let deep: JsonValue = 'leaf';
  for (let i = 0; i < height - above; i++) deep = { a: deep };
  const object = widget(deep);
  expect(heightUpTo(reviewOf(object) as JsonValue, 5000)).toBe(height);
  return object;
}

type Reply = { response: { allowed: boolean; patch?: string; status?: { message?: string } } };

describe('a resource nested as deep as a review may be', () => {
  it('is merged by patchStrategicMerge rules (the deepest review the server parses)', async () => {
    const set = policySetFrom(POLICIES);
    const text = JSON.stringify(reviewOf(deepWidget(DEFAULT_MAX_DEPTH)));
    const reply = (await answerReviewText(text, set, DEFAULT_MAX_DEPTH)).body as unknown as Reply;
    expect(reply.response.allowed, reply.response.status?.message).toBe(true);
    const patch = JSON.parse(Buffer.from(reply.response.patch ?? 'W10=', 'base64').toString('utf8')) as unknown[];
    expect(patch).toEqual([
      { op: 'add', path: '/metadata/labels', value: { owner: 'team-a' } },
      { op: 'add', path: '/spec/size', value: 1 },
    ]);
  });

  it('one level more is refused by the parser, as before', async () => {
    const set = policySetFrom(POLICIES);
    const reply = await answerReviewText(JSON.stringify(reviewOf(deepWidget(DEFAULT_MAX_DEPTH + 1))), set, DEFAULT_MAX_DEPTH);
    expect(reply.status).toBe(400);
  });
});
