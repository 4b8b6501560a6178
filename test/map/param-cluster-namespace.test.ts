/**
 * An object of a cluster-scoped kind has no namespace once stored: kube-apiserver's create path clears a
 * namespace the body gives it (apiserver registry/rest/meta.go EnsureObjectNamespaceMatchesRequestNamespace,
 * "cluster-scoped, clear namespace"). So a cluster-scoped param written with `metadata.namespace` reads no
 * namespace in CEL, and two such documents with one name are one object (the second a duplicate).
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { addedAt, EMPTY_WIDGET_REVIEW, mutateWidget, widgetParamPolicy } from './widget-reviews.js';

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: settings.example.com }
spec:
  group: example.com
  scope: Cluster
  names: { kind: Setting, plural: settings }
  versions:
  - { name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } } }
`;

function set(params: string): string {
  return `${CRD}
---
${params}
---
${widgetParamPolicy({ paramKind: `apiVersion: example.com/v1, kind: Setting`, paramRef: '{ name: s, parameterNotFoundAction: Deny }', annotations: `"namespaced": string(has(params.metadata.namespace)), "tier": string(params.spec.tier)` })}`;
}

const REVIEW = EMPTY_WIDGET_REVIEW;

describe('a param of a cluster-scoped kind written with a namespace', () => {
  it('reads no namespace', async () => {
    const reply = await mutateWidget(set('apiVersion: example.com/v1\nkind: Setting\nmetadata: { name: s, namespace: team-a }\nspec: { tier: gold }'), REVIEW);
    expect(reply.status?.message).toBeUndefined();
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ namespaced: 'false', tier: 'gold' });
  });

  it('is the same object as one of that name in another namespace: the second is a duplicate', () => {
    const built = buildPolicySet(parseDocuments('p.yaml', set(
      'apiVersion: example.com/v1\nkind: Setting\nmetadata: { name: s, namespace: team-a }\nspec: { tier: gold }\n---\n' +
        'apiVersion: example.com/v1\nkind: Setting\nmetadata: { name: s }\nspec: { tier: silver }',
    )));
    expect(built.problems.map((p) => [p.kind, p.name, p.path, p.effect])).toEqual([['Setting', 's', 'metadata.name', 'ignored']]);
    expect(built.objects.objects('example.com', 'Setting', undefined).map((p) => p.value.spec)).toEqual([{ tier: 'gold' }]);
  });
});
