/**
 * patchStrategicMerge over a list with two merge keys (ports: containerPort + protocol) when an item
 * lacks the protocol, as kyaml merges it (kyaml/yaml/walk/associative_sequence.go). mergeValues first
 * completes a partial key tuple from a tuple it matches ([80, ""] with [80, TCP] gives [80, TCP] for both);
 * each tuple then finds the items holding all its values, so an item without protocol is found by none:
 * an overlay port without protocol naming a port that has one (the API server defaults it to TCP) merges
 * nothing, and a resource port without protocol is set back by appendListNode unmerged, after deleting
 * the items of its containerPort. Upstream: kustomize's tests 'port patch has no protocol' (merge2
 * map_test.go) and TestPatchPortHasNoProtocol / TestPatchAddNewServicePort (api/krusty
 * multiplepatch_test.go, #3620), 'list map keys - protocol only present on some ports' (#3513).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function mutate(patch: JsonObject, resource: JsonObject) {
  const policy = compiled(clusterPolicy('p', [{ name: 'r', match: { any: [{ resources: { kinds: [String(resource.kind)] } }] }, mutate: { patchStrategicMerge: patch } }]));
  const kind = String(resource.kind);
  const request = podRequest(resource, { kind: { group: '', version: 'v1', kind }, resource: { group: '', version: 'v1', resource: `${kind.toLowerCase()}s` } });
  const result = await runKyvernoPolicies([policy], { request });
  return { status: result.policies[0].rules[0].status, object: result.object as JsonObject };
}

async function ports(overlay: JsonObject[], resource: JsonObject[], extra: JsonObject = {}) {
  const object = pod('web', ['a']);
  ((object.spec as JsonObject).containers as JsonObject[])[0].ports = resource;
  const { status, object: out } = await mutate({ ...extra, spec: { containers: [{ name: 'a', ports: overlay }] } }, object);
  return { status, ports: (((out.spec as JsonObject).containers as JsonObject[])[0].ports ?? []) as JsonObject[] };
}

describe('a port without protocol', () => {
  it('in the overlay does not merge into the same port with a protocol (kyaml completes the key, the overlay item lacks it)', async () => {
    const { status, ports: out } = await ports([{ containerPort: 80, name: 'http' }], [{ containerPort: 80, protocol: 'TCP' }]);
    expect(status).toBe('skipped');
    expect(out).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('in the overlay merges into none of the protocols of its port', async () => {
    const resource = [
      { containerPort: 53, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ];
    const { status, ports: out } = await ports([{ containerPort: 53, name: 'dns' }], resource);
    expect(status).toBe('skipped');
    expect(out).toEqual(resource);
  });

  it('in the overlay is added when no port has its number, first (prepend)', async () => {
    const { ports: out } = await ports([{ containerPort: 81, name: 'x' }], [{ containerPort: 80, protocol: 'TCP' }]);
    expect(out).toEqual([
      { containerPort: 81, name: 'x' },
      { containerPort: 80, protocol: 'TCP' },
    ]);
  });

  it('in the overlay, next to ports it does complete, leaves the others merged', async () => {
    const { ports: out } = await ports(
      [
        { containerPort: 80, hostPort: 8080 },
        { containerPort: 9090 },
        { containerPort: 443, protocol: 'TCP', name: 'https' },
      ],
      [
        { containerPort: 80, protocol: 'TCP', name: 'http' },
        { containerPort: 443, protocol: 'TCP' },
      ],
    );
    expect(out).toEqual([
      { containerPort: 9090 },
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 443, protocol: 'TCP', name: 'https' },
    ]);
  });

  it('in the resource is not found by an overlay port with a protocol, and is set back unmerged', async () => {
    const { status, ports: out } = await ports([{ containerPort: 80, protocol: 'TCP', name: 'http' }], [{ containerPort: 80 }]);
    expect(status).toBe('skipped');
    expect(out).toEqual([{ containerPort: 80 }]);
  });

  it('in the resource, after a port of its number with a protocol, deletes that port (appendListNode)', async () => {
    const { status, ports: out } = await ports([], [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80 }], { metadata: { labels: { a: 'b' } } });
    expect(status).toBe('applied');
    expect(out).toEqual([{ containerPort: 80 }]);
  });

  it('in the resource, among ports with protocols of other numbers, leaves the list as it is (kustomize #3513)', async () => {
    const resource: JsonObject[] = [
      { containerPort: 8500, name: 'http' },
      { containerPort: 8301, protocol: 'TCP' },
      { containerPort: 8301, protocol: 'UDP' },
    ];
    const { ports: out } = await ports([], resource, { metadata: { labels: { test: 'label' } } });
    expect(out).toEqual(resource);
  });

  it('of a Service (port + protocol) in the overlay leaves the defaulted port as it is', async () => {
    const service: JsonObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { ports: [{ port: 30900, targetPort: 30900, protocol: 'TCP' }], type: 'NodePort' },
    };
    const { status, object } = await mutate({ spec: { ports: [{ port: 30900, targetPort: 8080 }] } }, service);
    expect(status).toBe('skipped');
    expect((object.spec as JsonObject).ports).toEqual([{ port: 30900, targetPort: 30900, protocol: 'TCP' }]);
  });

  // No timed assertion: a pairwise version of this merge took minutes on these 30,000 ports (past the
  // test's timeout), the linear one about a second.
  it('in many ports costs linear work (mergeValues of two keys)', async () => {
    const resource: JsonObject[] = Array.from({ length: 30_000 }, (_, i) => ({ containerPort: 1000 + i }));
    resource.push({ containerPort: 1000, protocol: 'TCP' });
    const { status, ports: out } = await ports([{ containerPort: 1001, name: 'x' }], resource);
    expect(status).toBe('applied');
    // Each resource port is set back in its order, the one of 1000 without protocol deleting 1000/TCP,
    // which is set back last.
    expect(out.length).toBe(30_001);
    expect(out.slice(0, 2)).toEqual([{ containerPort: 1000 }, { containerPort: 1001, name: 'x' }]);
    expect(out[30_000]).toEqual({ containerPort: 1000, protocol: 'TCP' });
  });
});
