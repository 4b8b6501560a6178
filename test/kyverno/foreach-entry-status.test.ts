/**
 * A foreach rule passes when one of its entries changed the resource it started from, as Kyverno counts
 * them (pkg/engine/handlers/mutation/common.go mutateForEach: applyCount of the entries whose
 * mutateElements did not skip), even when a later entry undid the change: the rule's net change is
 * none, but it is reported as mutating, and `applyRules: One` stops after it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const addThenRemove: JsonObject[] = [
  { list: 'request.object.spec.containers', patchStrategicMerge: { metadata: { labels: { 'seen-{{ element.name }}': 'yes' } } } },
  { list: 'request.object.spec.containers', patchesJson6902: '[{"op": "remove", "path": "/metadata/labels/seen-{{ element.name }}"}]' },
];

describe('foreach rule status', () => {
  it('passes when an entry changed the resource, though a later one undid it', async () => {
    const policy = compiled(
      clusterPolicy(
        'undo',
        [
          { name: 'add-and-remove', mutate: { foreach: addThenRemove } },
          { name: 'after', mutate: { patchStrategicMerge: { metadata: { labels: { after: 'ran' } } } } },
        ],
        { applyRules: 'One' },
      ),
    );
    const object = pod('web', ['a']);
    (object.metadata as { labels?: object }).labels = { app: 'web' };
    const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
    expect(result.policies[0].rules.map((r) => [r.rule, r.status])).toEqual([['add-and-remove', 'applied']]);
    expect(result.object).toEqual(object);
  });

  it('skips when no entry changed anything', async () => {
    const policy = compiled(
      clusterPolicy('none', [{ name: 'r', mutate: { foreach: [addThenRemove[1], { list: 'request.object.spec.containers', patchStrategicMerge: { metadata: { '(labels)': { app: 'db' }, annotations: { x: 'y' } } } }] } }]),
    );
    const object = pod('web', ['a']);
    (object.metadata as { labels?: object }).labels = { app: 'web' };
    const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
    expect(result.policies[0].rules.map((r) => [r.rule, r.status, r.message])).toEqual([['r', 'skipped', '0 elements processed']]);
  });
});
