/**
 * patchStrategicMerge over a keyed list, as kyaml ends its merge (kyaml/yaml/walk/associative_sequence.go
 * appendListNode, list increase direction prepend): each resource item, in order and as the walk left it,
 * is set into the collected items by ElementSetter. With one merge key it replaces the collected items
 * holding its value, so of duplicates the last one stays, unmerged, where the first one was; with several
 * keys it is deleted and appended, so the resource's items follow the overlay's new ones in their own
 * order. Upstream evidence: kustomize issue #3426 (duplicate containerPort 8080 without protocol: only the
 * last, api-port, is left) and a measurement with kustomize v5.8.1 (ai-dynamo/dynamo PR #15064: a
 * strategic merge setting a duplicated env name leaves the value of the last duplicate).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function mutate(overlay: JsonObject, container: JsonObject) {
  const policy = compiled(clusterPolicy('p', [{ name: 'r', mutate: { patchStrategicMerge: overlay } }]));
  const object = pod('web', ['a']);
  Object.assign(((object.spec as JsonObject).containers as JsonObject[])[0], container);
  const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
  return { status: result.policies[0].rules[0].status, container: ((result.object as JsonObject).spec as JsonObject).containers as JsonObject[] };
}

const env = [
  { name: 'E', value: '1' },
  { name: 'F', value: 'f' },
  { name: 'E', value: '2' },
];

describe('duplicate merge keys in the resource', () => {
  it('keep the last duplicate where the first stood, when the overlay does not name the list', async () => {
    const { status, container } = await mutate({ spec: { containers: [{ name: 'a', imagePullPolicy: 'Always' }] } }, { env });
    expect(status).toBe('applied');
    expect(container[0].env).toEqual([
      { name: 'E', value: '2' },
      { name: 'F', value: 'f' },
    ]);
  });

  it('lose what the overlay merged into the first duplicate', async () => {
    const { container } = await mutate({ spec: { containers: [{ name: 'a', env: [{ name: 'E', value: '3' }, { name: 'F', value: 'g' }] }] } }, { env });
    expect(container[0].env).toEqual([
      { name: 'E', value: '2' },
      { name: 'F', value: 'g' },
    ]);
  });

  it('are merged so in an overlay whose condition failed (merged as {})', async () => {
    const { status, container } = await mutate({ spec: { '(hostNetwork)': true, priorityClassName: 'high' } }, { env });
    expect(status).toBe('applied');
    expect(container[0].env).toEqual([
      { name: 'E', value: '2' },
      { name: 'F', value: 'f' },
    ]);
  });

  it('of ports without protocol (one key some item sets) keep the last (kustomize #3426)', async () => {
    const ports = [
      { containerPort: 8080, name: 'monitoring-port' },
      { containerPort: 8080, name: 'api-port' },
    ];
    const { container } = await mutate({ spec: { containers: [{ name: 'a', image: 'image:tag' }] } }, { ports });
    expect(container[0].ports).toEqual([{ containerPort: 8080, name: 'api-port' }]);
  });

  it('of ports with protocol keep the last, after the other items', async () => {
    const ports: JsonObject[] = [
      { containerPort: 80, protocol: 'TCP', name: 'first' },
      { containerPort: 81, protocol: 'TCP' },
      { containerPort: 80, protocol: 'TCP', name: 'last' },
    ];
    const { container } = await mutate({ spec: { containers: [{ name: 'a', image: 'image:tag' }] } }, { ports });
    expect(container[0].ports).toEqual([
      { containerPort: 81, protocol: 'TCP' },
      { containerPort: 80, protocol: 'TCP', name: 'last' },
    ]);
  });
});

describe('a list with several merge keys', () => {
  const ports = [
    { containerPort: 80, protocol: 'TCP' },
    { containerPort: 81, protocol: 'TCP' },
  ];

  it('keeps its items in their order when the overlay names one, after the overlay new ones', async () => {
    const { container } = await mutate(
      { spec: { containers: [{ name: 'a', ports: [{ containerPort: 81, protocol: 'TCP', name: 'x' }, { containerPort: 82, protocol: 'TCP' }] }] } },
      { ports },
    );
    expect(container[0].ports).toEqual([
      { containerPort: 82, protocol: 'TCP' },
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 81, protocol: 'TCP', name: 'x' },
    ]);
  });

  it('of one key (containers) puts the items the overlay names first, as before', async () => {
    const policy = compiled(clusterPolicy('p', [{ name: 'r', mutate: { patchStrategicMerge: { spec: { containers: [{ name: 'b', image: 'z' }] } } } }]));
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('web', ['a', 'b'])) });
    const containers = ((result.object as JsonObject).spec as JsonObject).containers as JsonObject[];
    expect(containers.map((c) => c.name)).toEqual(['b', 'a']);
  });
});

describe("an overlay item's $patch: replace", () => {
  it('is undone: the resource item is set back in its place', async () => {
    const { status, container } = await mutate({ spec: { containers: [{ name: 'a', $patch: 'replace', image: 'z:9' }] } }, { args: ['--x'] });
    expect(status).toBe('skipped');
    expect(container[0]).toEqual({ name: 'a', image: 'registry.example.com/a:1.0', args: ['--x'] });
  });
});
