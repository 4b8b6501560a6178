/**
 * patchStrategicMerge takes patch strategies and merge keys from kyaml's compiled-in Kubernetes v1.21.2
 * OpenAPI data, as Kyverno does (it never sets another schema): fields and kinds that release lacks have
 * no schema, so their lists are replaced whole. MutatingAdmissionPolicy keeps the current facts.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { SchemaRegistry, strategicMerge } from '../../src/schema/index.js';
import { clusterPolicy, compiled, podRequest } from './helpers/requests.js';

function policy(kind: string, overlay: JsonObject) {
  const doc = clusterPolicy('smp', [{ name: 'r', mutate: { patchStrategicMerge: overlay } }]) as { spec: { rules: JsonObject[] } };
  doc.spec.rules[0].match = { any: [{ resources: { kinds: [kind] } }] };
  return compiled(doc as unknown as JsonValue);
}

function request(object: JsonObject, group: string, version: string, kind: string, resource: string): AdmissionRequest {
  return podRequest(object, { kind: { group, version, kind }, resource: { group, version, resource } });
}

async function mutate(kind: string, overlay: JsonObject, req: AdmissionRequest): Promise<JsonObject> {
  const result = await runKyvernoPolicies([policy(kind, overlay)], { request: req });
  expect(result.changed).toBe(true);
  return result.object as JsonObject;
}

const podSpec = (o: JsonObject) => o.spec as JsonObject;
const meta = (o: JsonObject) => o.metadata as JsonObject;

describe('patchStrategicMerge with kyaml v1.21.2 merge facts', () => {
  const pod: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      schedulingGates: [{ name: 'example.com/a' }],
      resourceClaims: [{ name: 'gpu', resourceClaimName: 'c1' }],
      containers: [{ name: 'web', image: 'nginx:1' }],
    },
  };

  it('replaces Pod spec.schedulingGates (absent from v1.21.2) and still merges containers by name', async () => {
    const out = await mutate('Pod', { spec: { schedulingGates: [{ name: 'example.com/b' }], containers: [{ name: 'side', image: 'envoy:2' }] } }, podRequest(pod));
    expect(podSpec(out).schedulingGates).toEqual([{ name: 'example.com/b' }]);
    expect(podSpec(out).containers).toEqual([
      { name: 'side', image: 'envoy:2' },
      { name: 'web', image: 'nginx:1' },
    ]);
  });

  it('replaces Pod spec.resourceClaims', async () => {
    const out = await mutate('Pod', { spec: { resourceClaims: [{ name: 'fpga', resourceClaimName: 'c2' }] } }, podRequest(pod));
    expect(podSpec(out).resourceClaims).toEqual([{ name: 'fpga', resourceClaimName: 'c2' }]);
  });

  it("replaces a Deployment pod template's schedulingGates, merging its containers", async () => {
    const deployment: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default', finalizers: ['example.com/a'] },
      spec: { selector: {}, template: { spec: { schedulingGates: [{ name: 'a' }], containers: [{ name: 'web', image: 'nginx:1' }] } } },
    };
    const overlay = { metadata: { finalizers: ['example.com/b'] }, spec: { template: { spec: { schedulingGates: [{ name: 'b' }], containers: [{ name: 'web', image: 'nginx:2' }] } } } };
    const out = await mutate('Deployment', overlay, request(deployment, 'apps', 'v1', 'Deployment', 'deployments'));
    const template = (podSpec(out).template as JsonObject).spec as JsonObject;
    expect(template.schedulingGates).toEqual([{ name: 'b' }]);
    expect(template.containers).toEqual([{ name: 'web', image: 'nginx:2' }]);
    // apps/v1 Deployment is in v1.21.2: metadata.finalizers (patch strategy merge) is a union.
    expect(meta(out).finalizers).toEqual(['example.com/b', 'example.com/a']);
  });

  const hpa = (apiVersion: string): JsonObject => ({
    apiVersion,
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h', namespace: 'default', finalizers: ['example.com/a'] },
    spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } },
  });
  const overlay = { metadata: { finalizers: ['example.com/b'] } };

  it('replaces the finalizers of an autoscaling/v2 HorizontalPodAutoscaler (a kind v1.21.2 lacks: no schema)', async () => {
    const out = await mutate('HorizontalPodAutoscaler', overlay, request(hpa('autoscaling/v2'), 'autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'));
    expect(meta(out).finalizers).toEqual(['example.com/b']);
  });

  it('merges the finalizers of an autoscaling/v1 HorizontalPodAutoscaler (a v1.21.2 kind)', async () => {
    const out = await mutate('HorizontalPodAutoscaler', overlay, request(hpa('autoscaling/v1'), 'autoscaling', 'v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'));
    expect(meta(out).finalizers).toEqual(['example.com/b', 'example.com/a']);
  });
});

describe('the registries', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', spec: { schedulingGates: [{ name: 'a' }], ephemeralContainers: [{ name: 'dbg', ports: [{ containerPort: 80 }] }] } };
  const overlay = { spec: { schedulingGates: [{ name: 'b' }], ephemeralContainers: [{ name: 'dbg', ports: [{ containerPort: 81 }] }] } };

  it('strategicMerge defaults to kyaml: schedulingGates and ephemeral container ports (no strategy in v1.21.2) replaced', () => {
    const out = strategicMerge(pod, overlay);
    expect(out.ok && out.value.spec).toEqual({ schedulingGates: [{ name: 'b' }], ephemeralContainers: [{ name: 'dbg', ports: [{ containerPort: 81 }] }] });
  });

  it('the current facts (SchemaRegistry.builtin(), what MutatingAdmissionPolicy uses) merge them', () => {
    const out = strategicMerge(pod, overlay, { registry: SchemaRegistry.builtin() });
    expect(out.ok && out.value.spec).toEqual({
      schedulingGates: [{ name: 'b' }, { name: 'a' }],
      ephemeralContainers: [{ name: 'dbg', ports: [{ containerPort: 81 }, { containerPort: 80 }] }],
    });
  });

  it('kyaml() knows only the kinds v1.21.2 has', () => {
    const kyaml = SchemaRegistry.kyaml();
    expect(kyaml.lookup('apps/v1', 'Deployment')?.source).toBe('builtin');
    expect(kyaml.lookup('autoscaling/v2beta2', 'HorizontalPodAutoscaler')).toBeUndefined(); // removed since: not a current kind
    expect(kyaml.lookup('autoscaling/v2', 'HorizontalPodAutoscaler')).toBeUndefined();
    expect(kyaml.lookup('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema')).toBeUndefined();
    expect(kyaml.lookup('resource.k8s.io/v1', 'ResourceClaim')).toBeUndefined();
    expect(SchemaRegistry.builtin().lookup('autoscaling/v2', 'HorizontalPodAutoscaler')?.source).toBe('builtin');
  });
});
