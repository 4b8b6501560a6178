/**
 * `element` variables outside a foreach are refused as Kyverno's ValidateElementInForEach
 * (pkg/engine/variables/vars.go, run on each rule by pkg/validation/policy) refuses them: a variable as
 * its variable syntax finds it, in a string or a map key, whose expression starts with `element`. An
 * escaped `\{{ element.name }}` is no variable: the policy is kept, and the text written unescaped.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

const withAnnotations = (annotations: JsonObject) =>
  clusterPolicy('p', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations } } } }], { background: false });

function refusal(annotations: JsonObject): string | undefined {
  const result = compileKyvernoPolicy(withAnnotations(annotations));
  return result.ok ? undefined : result.problems.map((p) => p.message).join('; ');
}

describe('element variables outside foreach', () => {
  it('are refused in values and keys, shallow or not', () => {
    const cases: JsonObject[] = [{ a: '{{ element.name }}' }, { '{{elementIndex}}': 'x' }, { a: 'x-{{- element0.name }}' }];
    for (const annotations of cases) {
      expect(refusal(annotations), JSON.stringify(annotations)).toMatch(/element \/ elementIndex variables may only be used inside foreach/);
    }
  });
  it('an escaped one is text: kept, and written without its backslash', async () => {
    const annotations = { doc: 'write \\{{ element.name }} in a foreach' };
    expect(refusal(annotations)).toBeUndefined();
    const compiled = compileKyvernoPolicy(withAnnotations(annotations));
    if (!compiled.ok) return;
    const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a'])) });
    expect(((result.object as JsonObject).metadata as JsonObject).annotations).toEqual({ doc: 'write {{ element.name }} in a foreach' });
  });
  it('only a variable whose expression starts with element counts (as in Kyverno)', () => {
    expect(refusal({ a: '{{ request.object.metadata.labels.element || `x` }}' })).toBeUndefined();
  });
});
