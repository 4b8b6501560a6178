/**
 * Requests in turn, each against the same compiled (frozen) policies, must each get exactly the answer
 * they would get alone: nothing one request leaves behind (in the compiled policies, the engine's caches
 * or the context it builds) may change another's answer.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const policies = Object.freeze([
  compiled(
    clusterPolicy('reuse', [
      {
        name: 'non-root-for-a',
        mutate: {
          patchStrategicMerge: {
            spec: { containers: [{ '(name)': 'a*', securityContext: { '+(runAsNonRoot)': true } }] },
          },
        },
      },
      {
        name: 'team',
        mutate: { patchStrategicMerge: { metadata: { labels: { team: '{{ request.object.metadata.annotations.team }}' } } } },
      },
      {
        name: 'namespace-env',
        mutate: {
          foreach: [
            {
              list: 'request.object.spec.containers',
              patchesJson6902: '- op: add\n  path: /spec/containers/{{elementIndex}}/env\n  value: [{name: NS, value: "{{ request.namespace }}"}]',
            },
          ],
        },
      },
    ]),
  ),
]);

function subject(containers: JsonObject[], team: JsonValue, namespace: string): JsonObject {
  const p = pod('p', []);
  (p.metadata as JsonObject).namespace = namespace;
  (p.metadata as JsonObject).annotations = { team };
  (p.spec as JsonObject).containers = containers;
  return p;
}

async function mutated(p: JsonObject): Promise<JsonValue> {
  const result = await runKyvernoPolicies(policies, { request: podRequest(p) });
  expect(result.policies.map((o) => o.status)).toEqual(['applied']);
  return result.object;
}

const env = (ns: string) => [{ name: 'NS', value: ns }];

describe('values remembered across requests', () => {
  it('gives each request its own answer, the same when the request comes back', async () => {
    const first = subject([{ name: 'api' }, { name: 'web', securityContext: {} }], 'blue', 'one');
    const second = subject([{ name: 'api', securityContext: { runAsNonRoot: false } }, { name: 'admin' }], 'green', 'two');
    const third = subject([{ name: 'web' }, { name: 'api' }, { name: 'auth', securityContext: { runAsUser: 1 } }], 'blue', 'one');
    const expected: [JsonObject, JsonValue][] = [
      [
        first,
        {
          metadata: { name: 'p', namespace: 'one', annotations: { team: 'blue' }, labels: { team: 'blue' } },
          containers: [
            { name: 'api', securityContext: { runAsNonRoot: true }, env: env('one') },
            { name: 'web', securityContext: {}, env: env('one') },
          ],
        },
      ],
      [
        second,
        {
          metadata: { name: 'p', namespace: 'two', annotations: { team: 'green' }, labels: { team: 'green' } },
          // The merge puts the items the overlay names first (api's +() anchor went: it has the field).
          containers: [
            { name: 'admin', securityContext: { runAsNonRoot: true }, env: env('two') },
            { name: 'api', securityContext: { runAsNonRoot: false }, env: env('two') },
          ],
        },
      ],
      [
        third,
        {
          metadata: { name: 'p', namespace: 'one', annotations: { team: 'blue' }, labels: { team: 'blue' } },
          containers: [
            { name: 'api', securityContext: { runAsNonRoot: true }, env: env('one') },
            { name: 'auth', securityContext: { runAsUser: 1, runAsNonRoot: true }, env: env('one') },
            { name: 'web', env: env('one') },
          ],
        },
      ],
    ];
    // Twice over, in turn: the second round finds everything the first one left.
    for (let round = 0; round < 2; round++) {
      for (const [request, want] of expected) {
        const out = (await mutated(structuredClone(request))) as JsonObject;
        expect({ metadata: out.metadata, containers: (out.spec as JsonObject).containers }).toEqual(want);
      }
    }
  });

  it('still fails a request whose variable does not resolve, after others resolved it', async () => {
    await mutated(subject([{ name: 'api' }], 'blue', 'one'));
    const p = subject([{ name: 'api' }], 'blue', 'one');
    delete (p.metadata as JsonObject).annotations;
    const result = await runKyvernoPolicies(policies, { request: podRequest(p) });
    expect(result.policies[0].status).toBe('error');
    expect(result.policies[0].rules.find((r) => r.rule === 'team')?.message).toMatch(/failed to resolve/);
  });
});
