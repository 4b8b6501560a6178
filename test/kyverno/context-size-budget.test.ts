/**
 * Kyverno's context size budget (pkg/engine/context/context.go checkContextSizeLimit, since v1.17.0):
 * every context entry a loader adds counts its JSON bytes against maxContextSize (2 MiB by default),
 * cumulatively over the whole admission request — all mutate policies share the webhook's one context —
 * and nothing lowers the count: restoring a checkpoint does not, and a loaded entry Kyverno reloads into a
 * restored context (deferred.go Reset, before each foreach element and at each restore) counts again.
 * An entry past the limit fails its load with ContextSizeLimitExceededError's message.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies, type KyvernoInput } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const LIMIT = 2 * 1024 * 1024;
const limitMessage = (bytes: number) => `context size limit exceeded: ${bytes} bytes exceeds limit of ${LIMIT} bytes`;

function containers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `c${i}`);
}

/** The probe's policy: each element loads a ~100 KB variable (100,002 bytes of JSON). */
const perContainerConfig = compiled(
  clusterPolicy('per-container-config', [
    {
      name: 'r',
      mutate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            context: [{ name: 'cfg', variable: { value: '{{ request.object.metadata.annotations.config }}' } }],
            patchesJson6902: '- op: add\n  path: /spec/containers/{{elementIndex}}/env\n  value: [{name: CFG_LEN, value: "{{ length(cfg) }}"}]',
          },
        ],
      },
    },
  ]),
);

function bigPod(n: number): JsonObject {
  const subject = pod('p', containers(n));
  (subject.metadata as JsonObject).annotations = { config: 'x'.repeat(100_000) };
  return subject;
}

describe('the context size budget', () => {
  it('is cumulative over foreach elements: the 21st ~100 KB entry passes 2 MiB and fails the rule', async () => {
    const result = await runKyvernoPolicies([perContainerConfig], { request: podRequest(bigPod(25)) });
    const [rule] = result.policies[0].rules;
    expect(rule.status).toBe('error');
    // 21 × 100,002 bytes
    expect(rule.message).toContain(limitMessage(2_100_042));
    expect(result.changed).toBe(false);
  });

  it('20 such entries fit', async () => {
    const result = await runKyvernoPolicies([perContainerConfig], { request: podRequest(bigPod(20)) });
    expect(result.policies[0].status).toBe('applied');
    const spec = (result.object as JsonObject).spec as JsonObject;
    expect((spec.containers as JsonObject[]).every((c) => (c.env as JsonObject[])[0].value === '100000')).toBe(true);
  });

  it('maxContextSize 0 turns it off; another limit is Kyverno’s ConfigMap setting', async () => {
    const off = await runKyvernoPolicies([perContainerConfig], { request: podRequest(bigPod(25)), maxContextSize: 0 });
    expect(off.policies[0].status).toBe('applied');
    const small = await runKyvernoPolicies([perContainerConfig], { request: podRequest(bigPod(3)), maxContextSize: 250_000 });
    expect(small.policies[0].rules[0].message).toContain('context size limit exceeded: 300006 bytes exceeds limit of 250000 bytes');
  });

  it('is shared by the policies of a review, and restoring a rule’s checkpoint gives nothing back', async () => {
    // Each policy alone adds 1,200,002 bytes; together they pass 2 MiB at the second.
    const policy = (name: string) =>
      compiled(
        clusterPolicy(name, [
          {
            name: 'r',
            context: [{ name: 'blob', variable: { value: '{{ request.object.metadata.annotations.blob }}' } }],
            mutate: { patchStrategicMerge: { metadata: { labels: { [name]: '{{ to_string(length(blob)) }}' } } } },
          },
        ]),
      );
    const subject = pod('p', ['c']);
    (subject.metadata as JsonObject).annotations = { blob: 'y'.repeat(1_200_000) };
    const input: KyvernoInput = { request: podRequest(subject) };
    const alone = await runKyvernoPolicies([policy('a-first')], input);
    expect(alone.policies[0].status).toBe('applied');
    const both = await runKyvernoPolicies([policy('a-first'), policy('b-second')], input);
    expect(both.policies.map((p) => p.status)).toEqual(['applied', 'error']);
    expect(both.policies[1].rules[0].message).toContain(limitMessage(2_400_004));
    // a fresh review starts from zero
    const again = await runKyvernoPolicies([policy('b-second')], input);
    expect(again.policies[0].status).toBe('applied');
  });

  it('counts a rule entry again each time Kyverno reloads it into a restored context (each foreach element)', async () => {
    // `big` (400,002 bytes) loads in the precondition, before the foreach; each element's reset reloads it
    // (+400,002) until it no longer fits (element 3: refused, only logged by Kyverno, the value stays from
    // the checkpoint); each element also loads `small` (50,002). The count reaches the limit at element 9:
    // 400,002 + 3 × (400,002 + 50,002) + 7 × 50,002 = 2,100,028. Counted once, it would be 900,022.
    const policy = compiled(
      clusterPolicy('reloads', [
        {
          name: 'r',
          context: [{ name: 'big', variable: { value: '{{ request.object.metadata.annotations.big }}' } }],
          preconditions: { all: [{ key: '{{ length(big) }}', operator: 'GreaterThan', value: 0 }] },
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                context: [{ name: 'small', variable: { value: '{{ request.object.metadata.annotations.small }}' } }],
                patchesJson6902:
                  '- op: add\n  path: /spec/containers/{{elementIndex}}/env\n  value: [{name: LENGTHS, value: "{{ length(big) }}/{{ length(small) }}"}]',
              },
            ],
          },
        },
      ]),
    );
    const subject = (n: number) => {
      const p = pod('p', containers(n));
      (p.metadata as JsonObject).annotations = { big: 'a'.repeat(400_000), small: 'b'.repeat(50_000) };
      return p;
    };
    const nine = await runKyvernoPolicies([policy], { request: podRequest(subject(9)) });
    expect(nine.policies[0].status).toBe('applied');
    // `big` is still readable after its reloads were refused: the checkpoint holds it
    const spec = (nine.object as JsonObject).spec as JsonObject;
    expect((spec.containers as JsonObject[]).map((c) => (c.env as JsonObject[])[0].value)).toEqual(Array(9).fill('400000/50000'));
    const ten = await runKyvernoPolicies([policy], { request: podRequest(subject(10)) });
    expect(ten.policies[0].status).toBe('error');
    expect(ten.policies[0].rules[0].message).toContain(limitMessage(2_100_028));
  });

  it('a configMap entry past the limit fails with the loader’s wrapping', async () => {
    const policy = compiled(
      clusterPolicy('cm', [
        { name: 'one', context: [{ name: 'settings', configMap: { name: 'big', namespace: 'default' } }], mutate: { patchStrategicMerge: { metadata: { labels: { one: '{{ to_string(length(settings.data.v)) }}' } } } } },
        { name: 'two', context: [{ name: 'settings', configMap: { name: 'big', namespace: 'default' } }], mutate: { patchStrategicMerge: { metadata: { labels: { two: '{{ to_string(length(settings.data.v)) }}' } } } } },
      ]),
    );
    const configMap = { data: { v: 'z'.repeat(1_100_000) }, metadata: { name: 'big', namespace: 'default' } };
    const result = await runKyvernoPolicies([policy], {
      request: podRequest(pod('p', ['c'])),
      sources: { configMap: (ns, name) => (ns === 'default' && name === 'big' ? configMap : undefined) },
    });
    const [one, two] = result.policies[0].rules;
    expect(one.status).toBe('applied');
    expect(two.status).toBe('error');
    // {"data":{"v":"z…"},"metadata":{"creationTimestamp":null,"name":"big","namespace":"default"}}: 1,100,090
    // bytes (ObjectMeta always writes creationTimestamp), twice
    expect(two.message).toContain(`failed to add config map for context entry settings: ${limitMessage(2_200_180)}`);
  });

  it('counts bytes as Go’s json.Marshal writes them: HTML characters escaped, UTF-8', async () => {
    // "<" is \u003c (6 bytes) and "é" 2 bytes: n pairs are 8n + 2 bytes, though only 2n characters
    const policy = compiled(
      clusterPolicy('escapes', [
        {
          name: 'r',
          context: [{ name: 'text', variable: { value: '{{ request.object.metadata.annotations.text }}' } }],
          mutate: { patchStrategicMerge: { metadata: { labels: { n: '{{ to_string(length(text)) }}' } } } },
        },
      ]),
    );
    const run = (pairs: number) => {
      const subject = pod('p', ['c']);
      (subject.metadata as JsonObject).annotations = { text: '<é'.repeat(pairs) };
      return runKyvernoPolicies([policy], { request: podRequest(subject) });
    };
    expect((await run(262_143)).policies[0].status).toBe('applied'); // 2,097,146 bytes
    const over = await run(262_144);
    expect(over.policies[0].rules[0].message).toContain(limitMessage(2_097_154));
  });
  it('an apiCall entry past the limit fails with apiLoader’s wrapping (results of its jmesPath, or the data as it came)', async () => {
    const call = (name: string, jmesPath?: string) => ({
      name,
      context: [{ name: 'resp', apiCall: { urlPath: '/api/v1/namespaces/default/configmaps/big', ...(jmesPath ? { jmesPath } : {}) } }],
      mutate: { patchStrategicMerge: { metadata: { labels: { [name]: '{{ to_string(length(to_string(resp))) }}' } } } },
    });
    const response = { data: { v: 'q'.repeat(1_100_000) } };
    const run = (second: JsonObject) =>
      runKyvernoPolicies([compiled(clusterPolicy('api', [call('one'), second]))], {
        request: podRequest(pod('p', ['c'])),
        sources: { apiCall: async () => response },
      });
    // {"data":{"v":"q…"}}: 1,100,017 bytes; its `data`: 1,100,008
    const whole = await run(call('two'));
    expect(whole.policies[0].rules[1].message).toContain(
      `failed to store data for APICall: failed to add resource data to context entry resp: ${limitMessage(2_200_034)}`,
    );
    const narrowed = await run(call('two', 'data'));
    expect(narrowed.policies[0].rules[1].message).toContain(
      `failed to store data for APICall: failed to add APICall results for context entry resp: ${limitMessage(2_200_025)}`,
    );
  });
});
