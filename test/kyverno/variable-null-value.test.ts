/**
 * A `variable` context entry with `value: null` has no value, as Kyverno decodes it (a JSON null into
 * the entry's *Any is a nil pointer: GetValue() == nil in pkg/engine/context/loaders/variable.go and in
 * validateVariable): with a jmesPath it queries the context, without one the policy is refused ("a
 * variable must define a value or a jmesPath expression").
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

const withVariable = (variable: JsonObject) =>
  clusterPolicy('p', [
    { name: 'r', context: [{ name: 'v', variable }], mutate: { patchStrategicMerge: { metadata: { labels: { seen: '{{ v }}' } } } } },
  ]);

describe('a variable entry with value: null', () => {
  it('reads its jmesPath from the context', async () => {
    const compiled = compileKyvernoPolicy(withVariable({ value: null, jmesPath: 'request.object.metadata.name' }));
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a'])) });
    expect(result.policies[0].rules[0]).toMatchObject({ status: 'applied' });
    expect(((result.object as JsonObject).metadata as JsonObject).labels).toEqual({ seen: 'web' });
  });
  it('without a jmesPath is refused', () => {
    const compiled = compileKyvernoPolicy(withVariable({ value: null }));
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problems).toEqual([{ path: 'spec.rules[0].context[0].variable', message: 'needs a value or a jmesPath' }]);
  });
});
