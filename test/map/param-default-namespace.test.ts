/**
 * An object of a namespaced kind written in the policy sources without `metadata.namespace` is in the
 * `default` namespace, where `kubectl apply` creates it (its context's namespace, `default` unless
 * configured): kube-apiserver holds no namespaced object without a namespace (a create names one in its
 * path), so a param informer never lists one in none. Before, such a ConfigMap param was loaded into no
 * namespace and no binding ever found it (generic/policy_dispatcher.go CollectParams lists the request's
 * or paramRef's namespace).
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { annotatingPolicy, configMapReview } from './configmap-reviews.js';
import { addedAt, mutateWidget } from './widget-reviews.js';

const POLICY = `${annotatingPolicy({ annotations: '{"a": params.data.a, "ns": params.metadata.namespace}', paramKind: 'apiVersion: v1, kind: ConfigMap' })}---
apiVersion: v1
kind: ConfigMap
metadata: { name: param }
data: { a: x }
`;

const review = configMapReview;

describe('a namespaced param written without a namespace', () => {
  it('is in the default namespace, found from a request there', async () => {
    const reply = await mutateWidget(POLICY, review('default'));
    expect(reply.status?.message).toBeUndefined();
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ a: 'x', ns: 'default' });
  });

  it('is not found from a request in another namespace', async () => {
    const reply = await mutateWidget(POLICY, review('shop'));
    expect(reply.allowed).toBe(false);
    expect(reply.status?.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
  });

  it('is the same object as one of its name written in default', () => {
    const set = buildPolicySet(parseDocuments('p.yaml', POLICY + '---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: param, namespace: default }\ndata: { a: z }\n'));
    expect(set.problems.map((p) => [p.name, p.message])).toEqual([
      ['param', 'Duplicate value: an object of this kind, namespace and name is already defined'],
    ]);
  });
});
