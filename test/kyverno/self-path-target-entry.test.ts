/**
 * `{{@}}` reads under `target` when `ctx.Query("target")` succeeds, else under `request.object`
 * (substituteVariablesIfAny in pkg/engine/variables/vars.go @ 111e07bbecc6). That is a query: a rule
 * context entry named `target` that no query has loaded yet is loaded by it (deferred.go LoadMatching),
 * and an entry whose load fails leaves the query failing, so `request.object` is used.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(rule: JsonObject) {
  const result = await runKyvernoPolicies([compiled(clusterPolicy('self', [{ name: 'r', ...rule }], { background: false }))], { request: podRequest(pod('p', ['a'])) });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  return { outcome, metadata: (result.object as JsonObject).metadata as JsonObject };
}

const targetEntry = { name: 'target', variable: { value: { metadata: { labels: { x: 'from-target' } } } } };

describe('{{@}} and a context entry named target', () => {
  it('the entry is loaded by the question whether target resolves, and {{@}} reads under it', async () => {
    const { outcome, metadata } = await run({
      context: [targetEntry],
      mutate: { patchStrategicMerge: { metadata: { labels: { x: '{{@}}' } } } },
    });
    expect(outcome.status).toBe('applied');
    expect(metadata.labels).toEqual({ x: 'from-target' });
  });

  it('the same whether or not an earlier variable loaded it', async () => {
    const { metadata } = await run({
      context: [targetEntry],
      mutate: { patchStrategicMerge: { metadata: { labels: { y: '{{ target.metadata.labels.x }}', x: '{{@}}' } } } },
    });
    expect(metadata.labels).toEqual({ y: 'from-target', x: 'from-target' });
  });

  it('an entry that fails to load is no target: {{@}} reads under request.object', async () => {
    const { outcome, metadata } = await run({
      context: [{ name: 'target', variable: { jmesPath: 'request.object.nothere' } }],
      mutate: { patchStrategicMerge: { metadata: { labels: { copy: '{{@}}' }, annotations: { n: 'x' } } } },
    });
    // request.object.metadata.labels.copy is no key of the Pod: the rule fails naming that expression.
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain('failed to resolve request.object.metadata.labels.copy');
    expect(metadata.labels).toBeUndefined();
  });
});
