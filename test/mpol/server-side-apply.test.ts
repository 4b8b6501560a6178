/**
 * spec.evaluation.useServerSideApply of a MutatingPolicy (Kyverno issue #15094): Kyverno then merges its
 * ApplyConfiguration mutations without kube-apiserver's validatePatch guard (pkg/cel/policies/mpol/compiler
 * smd.go applyStructuredMergeDiff, applyconfig.go), so a mutation may set atomic lists, maps and structs,
 * which the merge replaces whole. Without it the guard stays, as for a native MutatingAdmissionPolicy.
 * The cases are Kyverno's test/integration/mpol/applyconfig_atomic_test.go (expressions as written there).
 * Amender refused such a policy ('not supported'), so none of these mutations happened.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

function policy(name: string, expression: string, useServerSideApply: boolean): string {
  return stringify({
    apiVersion: 'policies.kyverno.io/v1beta1',
    kind: 'MutatingPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] },
      matchConditions: [{ name: 'opt-in', expression: "object.metadata.annotations['inject'] == 'enabled'" }],
      evaluation: { useServerSideApply },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }],
    },
  });
}

const POD: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'pod-args', namespace: 'default', annotations: { inject: 'enabled' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
};

const SIDECAR_ARGS = `Object{
	spec: Object.spec{
		initContainers: [
			Object.spec.initContainers{
				name: "mesh-proxy",
				image: "mesh/proxy:v1.0.0",
				args: ["proxy", "sidecar"],
				restartPolicy: "Always"
			}
		]
	}
}`;

const ENV_FIELDREF = `Object{
		spec: Object.spec{
			containers: object.spec.containers.map(c, Object.spec.containers{
				name: c.name,
				env: [
					Object.spec.containers.env{
						name: "POD_NAME",
						valueFrom: Object.spec.containers.env.valueFrom{
							fieldRef: Object.spec.containers.env.valueFrom.fieldRef{
								apiVersion: "v1",
								fieldPath: "metadata.name"
							}
						}
					}
				]
			})
		}
	}`;

const PROJECTED_VOLUME = `Object{
		spec: Object.spec{
			volumes: [
				Object.spec.volumes{
					name: "podinfo",
					projected: Object.spec.volumes.projected{
						sources: [
							Object.spec.volumes.projected.sources{
								downwardAPI: Object.spec.volumes.projected.sources.downwardAPI{
									items: [
										Object.spec.volumes.projected.sources.downwardAPI.items{
											path: "labels",
											fieldRef: Object.spec.volumes.projected.sources.downwardAPI.items.fieldRef{
												fieldPath: "metadata.labels"
											}
										}
									]
								}
							}
						]
					}
				}
			]
		}
	}`;

async function admit(doc: string, object: JsonObject = POD) {
  const set = policySetFrom(doc);
  const reply = await answerReview(reviewOf(object) as JsonValue, set);
  if (reply.status !== 200) throw new Error(`status ${reply.status}`);
  const response = reply.body.response as { allowed: boolean; patch?: string; status?: { message?: string } };
  let patched: JsonValue | undefined;
  if (response.patch) {
    const decoded = decodePatch(JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonValue);
    if (!decoded.ok) throw new Error('the reply holds an undecodable patch');
    const applied = applyPatch(object, decoded.patch);
    if (!applied.ok) throw new Error("the reply's patch does not apply");
    patched = applied.doc;
  }
  return { problems: set.problems.map((p) => `${p.path}: ${p.message}`), allowed: response.allowed, message: response.status?.message, object: patched };
}

describe('MutatingPolicy spec.evaluation.useServerSideApply', () => {
  it('injects a sidecar initContainer with args (an atomic list)', async () => {
    const r = await admit(policy('sidecar-args', SIDECAR_ARGS, true));
    expect(r.problems).toEqual([]);
    expect(r.allowed).toBe(true);
    expect((r.object as { spec: JsonObject }).spec.initContainers).toEqual([{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' }]);
  });

  it('injects an env var whose valueFrom.fieldRef is an atomic struct', async () => {
    const r = await admit(policy('env-fieldref', ENV_FIELDREF, true));
    expect(r.allowed).toBe(true);
    expect((r.object as { spec: { containers: JsonObject[] } }).spec.containers[0].env).toEqual([{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }]);
  });

  it('injects a projected volume whose downwardAPI items carry an atomic fieldRef', async () => {
    const r = await admit(policy('projected-volume', PROJECTED_VOLUME, true));
    expect(r.allowed).toBe(true);
    expect((r.object as { spec: JsonObject }).spec.volumes).toEqual([
      { name: 'podinfo', projected: { sources: [{ downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
    ]);
  });

  it('replaces an atomic value the object already has whole, as structured-merge-diff merges atomics', async () => {
    const pod: JsonObject = {
      ...POD,
      spec: { containers: [{ name: 'app', image: 'nginx' }], initContainers: [{ name: 'mesh-proxy', image: 'old', args: ['a', 'b', 'c'] }] },
    };
    const r = await admit(policy('sidecar-args', SIDECAR_ARGS, true), pod);
    expect((r.object as { spec: JsonObject }).spec.initContainers).toEqual([{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' }]);
  });

  it('without it (false or absent) the atomic guard stays: the mutation fails and the request is denied (failurePolicy Fail)', async () => {
    for (const doc of [policy('sidecar-args-default', SIDECAR_ARGS, false), policy('sidecar-args-default', SIDECAR_ARGS, true).replace('useServerSideApply: true', '{}').replace('evaluation: {}', '')]) {
      const r = await admit(doc);
      expect(r.problems).toEqual([]);
      expect(r.allowed).toBe(false);
      expect(r.message).toContain('may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args');
    }
  });

  it('leaves a native MutatingAdmissionPolicy with its guard', async () => {
    const map = stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'sidecar' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: SIDECAR_ARGS } }],
      },
    });
    const binding = stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'sidecar' }, spec: { policyName: 'sidecar' } });
    const r = await admit(`${map}---\n${binding}`);
    expect(r.allowed).toBe(false);
    expect(r.message).toContain('may not mutate atomic arrays, maps or structs');
  });
});
