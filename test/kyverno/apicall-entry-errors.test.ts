/**
 * An apiCall context entry (with a live API resolver configured) fails as Kyverno's API loader words it
 * (pkg/engine/context/loaders/apicall.go LoadData, pkg/engine/apicall/apiCall.go Fetch and
 * transformAndStore, executor.go executeK8sAPICall): `failed to fetch data for APICall: …` around the
 * substitution of the whole entry (`failed to substitute variables in context entry <name> <urlPath>: …`),
 * the namespace check of a Policy (on path.Clean of the path, CVE-2026-22039) and the call
 * (`failed to GET resource with raw url: <path>: <error>`); `failed to store data for APICall: failed to
 * apply JMESPath <path> for context entry <name>: …` around the jmesPath.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(apiCall: JsonObject, namespacedPolicy = false, respond: () => Promise<JsonValue> = async () => ({ metadata: { name: 'default' } }), rule: JsonObject = {}) {
  const calls: string[] = [];
  const document = clusterPolicy('p', [
    { name: 'r', context: [{ name: 'ac', apiCall }], mutate: { patchStrategicMerge: { metadata: { annotations: { a: '{{ to_string(ac) }}' } } } }, ...rule },
  ]);
  if (namespacedPolicy) Object.assign(document, { kind: 'Policy', metadata: { name: 'p', namespace: 'default' } });
  const result = await runKyvernoPolicies([compiled(document)], {
    request: podRequest(pod('web', ['a'])),
    sources: {
      apiCall: (request) => {
        calls.push(request.urlPath);
        return respond();
      },
    },
  });
  return { outcome: result.policies[0].rules[0], calls };
}

const AT = 'variable substitution failed: failed to resolve to_string(ac) at path /mutate/patchStrategicMerge/metadata/annotations/a: ';

describe('apiCall context entry errors', () => {
  it("a Policy's path is checked cleaned: a '..' cannot leave its namespace", async () => {
    const { outcome, calls } = await run({ urlPath: '/api/v1/namespaces/default/../other/configmaps' }, true);
    expect(outcome.message).toBe(
      `${AT}failed to fetch data for APICall: path /api/v1/namespaces/other/configmaps refers to namespace other, which is different from the policy namespace default`,
    );
    expect(calls).toEqual([]);
  });
  it("a Policy's path without a namespace segment under /api or /apis", async () => {
    const { outcome } = await run({ urlPath: '/version/namespaces/default' }, true);
    expect(outcome.message).toBe(`${AT}failed to fetch data for APICall: path /version/namespaces/default does not contain a namespace segment, which is required for namespaced policies`);
    expect((await run({ urlPath: '/api/v1/namespaces/default/configmaps' }, true)).outcome.status).toBe('applied');
  });
  it('a variable that fails anywhere in the entry, its jmesPath included, fails the fetch', async () => {
    // Loaded by a precondition, before the rule is substituted whole (which would meet the jmesPath first).
    const preconditions = { all: [{ key: '{{ ac.kind }}', operator: 'Equals', value: 'x' }] };
    const { outcome, calls } = await run({ urlPath: '/api/v1/namespaces', jmesPath: '{{ request.object.metadata.nope }}' }, false, undefined, { preconditions });
    expect(outcome.message).toBe(
      `failed to evaluate preconditions: failed to substitute variables in condition key: failed to resolve ac.kind at path : failed to fetch data for APICall: failed to substitute variables in context entry ac /api/v1/namespaces: failed to resolve request.object.metadata.nope at path /jmesPath: JMESPath query failed: Unknown key "nope" in path`,
    );
    expect(calls).toEqual([]);
  });
  it('a urlPath that substitutes to no string: the decoder type error', async () => {
    const { outcome } = await run({ urlPath: '{{ request.object.spec.containers }}' });
    expect(outcome.message).toBe(
      `${AT}failed to fetch data for APICall: failed to substitute variables in context entry ac {{ request.object.spec.containers }}: json: cannot unmarshal array into Go struct field ContextAPICall.urlPath of type string`,
    );
  });
  it('a failed call and a failed jmesPath', async () => {
    const failed = await run({ urlPath: '/api/v1/namespaces/x' }, false, () => Promise.reject(new Error('connection refused')));
    expect(failed.outcome.message).toBe(`${AT}failed to fetch data for APICall: failed to GET resource with raw url: /api/v1/namespaces/x: connection refused`);
    const narrowed = await run({ urlPath: '/api/v1/namespaces/x', jmesPath: 'metadata.nope' });
    expect(narrowed.outcome.message).toBe(`${AT}failed to store data for APICall: failed to apply JMESPath metadata.nope for context entry ac: Unknown key "nope" in path`);
  });
});
