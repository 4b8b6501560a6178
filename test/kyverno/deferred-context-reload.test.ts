/**
 * A rule context entry first read inside a foreach element is loaded again at every later reset of the
 * context, as Kyverno does (pkg/engine/context/deferred.go @ 111e07bbecc6: Reset calls loadData on every
 * loaded entry of an outer level, which computes its value anew; common.go mutateElements resets the
 * context before each element and restores it after the loop). The reset context has no `element`: an
 * entry whose value read the element no longer computes, is left out of the context (Kyverno logs "failed
 * to reload context entry"), and the next element's query of it finds no such key. Before, the value
 * computed for the first element was kept for the others: a wrong value, silently.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(rule: JsonObject) {
  const policy = compiled(clusterPolicy('reload', [{ name: 'r', ...rule }], { background: false }));
  const result = await runKyvernoPolicies([policy], { request: podRequest(pod('web', ['c1', 'c2'])) });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  const labels = ((result.object as JsonObject).metadata as JsonObject).labels as JsonObject | undefined;
  return { status: outcome.status, message: outcome.message, labels };
}

/** A label per container, its value the rule entry `n`. */
const labelPerContainer = {
  foreach: [{ list: 'request.object.spec.containers', patchesJson6902: '- op: add\n  path: /metadata/labels/c{{ elementIndex }}\n  value: "{{ n }}"' }],
};

describe('a rule context entry first loaded in a foreach element', () => {
  it('is computed again for the next element: one that read the element is gone there', async () => {
    const r = await run({ context: [{ name: 'n', variable: { jmesPath: 'element.name' } }], mutate: labelPerContainer });
    expect(r.status).toBe('error');
    expect(r.message).toContain('Unknown key "n" in path');
  });

  it('keeps its value when it computes the same without the element', async () => {
    const r = await run({ context: [{ name: 'n', variable: { jmesPath: 'request.object.metadata.name' } }], mutate: labelPerContainer });
    expect(r.status).toBe('applied');
    expect(r.labels).toEqual({ c0: 'web', c1: 'web' });
  });

  it('is computed once more when the loop ends, then kept for the next foreach entries', async () => {
    // The reload at the end of the first entry runs before request.object takes that entry's change.
    const n = { name: 'n', variable: { jmesPath: "request.object.metadata.labels.step || 'none'" } };
    const r = await run({
      context: [n],
      mutate: {
        foreach: [
          { list: "['x']", patchStrategicMerge: { metadata: { labels: { step: 'one', a0: '{{ n }}' } } } },
          { list: "['x']", patchStrategicMerge: { metadata: { labels: { a1: '{{ n }}' } } } },
        ],
      },
    });
    expect(r.status).toBe('applied');
    expect(r.labels).toEqual({ step: 'one', a0: 'none', a1: 'none' });
    // One that read the element is gone after the loop too.
    const gone = await run({
      context: [{ name: 'n', variable: { jmesPath: 'element' } }],
      mutate: {
        foreach: [
          { list: "['x']", patchStrategicMerge: { metadata: { labels: { a0: '{{ n }}' } } } },
          { list: "['y']", patchStrategicMerge: { metadata: { labels: { a1: '{{ n }}' } } } },
        ],
      },
    });
    expect(gone.status).toBe('error');
    expect(gone.message).toContain('Unknown key "n" in path');
  });
});
