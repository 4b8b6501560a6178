/**
 * An apiCall context entry's `default`, as pkg/engine/apicall/apiCall.go uses it: only when the call
 * fails (Fetch returns Default.Raw), as the policy wrote it (variables in it are not substituted into the
 * stored value) and without the jmesPath; `default: null` is no default. A jmesPath giving null stores
 * null, one that fails is an error (transformAndStore), default or not.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type KyvernoResult } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

async function run(apiCall: JsonObject, respond: () => Promise<JsonValue>): Promise<KyvernoResult> {
  const document = clusterPolicy('p', [
    {
      name: 'r',
      context: [{ name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', ...apiCall } }],
      mutate: { patchStrategicMerge: { metadata: { annotations: { team: '{{ to_string(ns) }}' } } } },
    },
  ]);
  const compiled = compileKyvernoPolicy(document);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a'])), sources: { apiCall: respond } });
}

const annotation = (result: KyvernoResult) => (((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject | undefined)?.team;
const failing = () => Promise.reject(new Error('connection refused'));
const labelled = (labels: JsonObject) => () => Promise.resolve({ metadata: { labels } } as JsonValue);

describe('apiCall default', () => {
  it('stands in for a failed call, as written, without the jmesPath', async () => {
    const result = await run({ jmesPath: 'metadata.labels.team', default: { team: '{{ request.name }}' } }, failing);
    expect(annotation(result)).toBe('{"team":"{{ request.name }}"}');
  });
  it('does not stand in for a jmesPath that gives null: null is stored', async () => {
    const result = await run({ jmesPath: 'metadata.labels.team || `null`', default: 'none' }, labelled({}));
    expect(result.policies[0].rules[0].status).toBe('applied');
    expect(annotation(result)).toBe('null');
  });
  it('does not stand in for a jmesPath that fails', async () => {
    const result = await run({ jmesPath: 'metadata.labels.team', default: 'none' }, labelled({}));
    expect(result.policies[0].rules[0]).toMatchObject({ status: 'error', message: expect.stringContaining('Unknown key "team"') });
  });
  it('null is no default: the failed call is the rule error', async () => {
    const result = await run({ default: null }, failing);
    expect(result.policies[0].rules[0]).toMatchObject({ status: 'error', message: expect.stringContaining('connection refused') });
  });
  it('a successful call is narrowed by the jmesPath as before', async () => {
    expect(annotation(await run({ jmesPath: 'metadata.labels.team', default: 'none' }, labelled({ team: 'red' })))).toBe('red');
  });
});
