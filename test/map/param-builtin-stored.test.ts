/**
 * A param object of a built-in kind is read as kube-apiserver stores it and its typed informer hands it to
 * CEL (generic/policy_source.go: informerFactory.ForResource; the object converted to unstructured, Go's
 * `omitempty` and MarshalJSON rules): decoded into its Go type, defaulted, converted for storage and
 * encoded again. So `data: {}` and `labels: {}` are gone, a quantity is canonical ('1000m' reads '1'), and
 * a Secret's `stringData` is merged into `data` in base64 and never read back (k8s.io/api core/v1
 * types.go, Secret.StringData), its empty `type` defaulted to Opaque (SetDefaults_Secret).
 */
import { describe, expect, it } from 'vitest';
import { annotatingPolicy, configMapReview } from './configmap-reviews.js';
import { addedAt, mutateWidget } from './widget-reviews.js';

/** A policy reading params of `paramKind` (`apiVersion, kind`) into the annotations `expression` builds. */
function policy(paramKind: string, expression: string, param: string): string {
  return `${annotatingPolicy({ annotations: expression, paramKind })}---\n${param}`;
}

const REVIEW = configMapReview();

async function annotations(set: string): Promise<unknown> {
  const reply = await mutateWidget(set, REVIEW);
  expect(reply.status?.message).toBeUndefined();
  return addedAt(reply, '/metadata/annotations');
}

describe('a param object of a built-in kind', () => {
  it('has no empty map its Go type leaves out (omitempty)', async () => {
    const set = policy(
      'apiVersion: v1, kind: ConfigMap',
      '{"data": string(has(params.data)), "labels": string(has(params.metadata.labels)), "binary": string(has(params.binaryData))}',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: param, namespace: default, labels: {} }\ndata: {}\nbinaryData: {}',
    );
    expect(await annotations(set)).toEqual({ data: 'false', labels: 'false', binary: 'false' });
  });

  it('holds its quantities in canonical form', async () => {
    const set = policy(
      'apiVersion: v1, kind: LimitRange',
      '{"cpu": params.spec.limits[0].default.cpu, "memory": params.spec.limits[0].default.memory, "half": params.spec.limits[0].max.cpu}',
      'apiVersion: v1\nkind: LimitRange\nmetadata: { name: param, namespace: default }\nspec:\n  limits: [{ type: Container, default: { cpu: 1000m, memory: 1024Mi }, max: { cpu: "0.5" } }]',
    );
    expect(await annotations(set)).toEqual({ cpu: '1', memory: '1Gi', half: '500m' });
  });

  it('is a Secret with stringData merged into data, which it overrides, and type Opaque', async () => {
    const set = policy(
      'apiVersion: v1, kind: Secret',
      '{"a": string(params.data.a), "b": string(params.data.b), "c": string(params.data.c), "stringData": string(has(params.stringData)), "type": string(params.type)}',
      'apiVersion: v1\nkind: Secret\nmetadata: { name: param, namespace: default }\ndata: { a: b2xk, b: Yg== }\nstringData: { a: "néw", c: "" }',
    );
    // data's values are base64 (of the UTF-8 bytes): "néw" is bsOpdw==, "" is the empty string.
    expect(await annotations(set)).toEqual({ a: 'bsOpdw==', b: 'Yg==', c: '', stringData: 'false', type: 'Opaque' });
  });

  it('keeps a Secret type that is set, and has no data when neither map holds a key', async () => {
    const set = policy(
      'apiVersion: v1, kind: Secret',
      '{"data": string(has(params.data)), "stringData": string(has(params.stringData)), "type": string(params.type)}',
      'apiVersion: v1\nkind: Secret\nmetadata: { name: param, namespace: default }\ntype: example.com/token\ndata: {}\nstringData: {}',
    );
    expect(await annotations(set)).toEqual({ data: 'false', stringData: 'false', type: 'example.com/token' });
  });
});
