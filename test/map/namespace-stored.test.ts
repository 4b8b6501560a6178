/**
 * A Namespace in the policy sources is matched and read as kube-apiserver stores it, not as written.
 * Every stored Namespace carries the label kubernetes.io/metadata.name with its name (kubernetes
 * pkg/apis/core/v1/defaults.go SetDefaults_Namespace, enforced by the namespace strategy's Canonicalize),
 * its status phase is Active when unset (SetDefaults_NamespaceStatus) and creation appends the
 * `kubernetes` finalizer (namespace strategy PrepareForCreate). The MutatingAdmissionPolicy dispatcher
 * matches namespaceSelector against and hands CEL (`namespaceObject`) the object of the namespace lister
 * (apiserver policy/mutating/dispatcher.go GetNamespace, cel/activation.go).
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { annotatingPolicy, configMapReview } from './configmap-reviews.js';
import { addedAt, mutateWidget } from './widget-reviews.js';

/** A policy on CREATE of ConfigMaps in namespaces `selector` selects, annotating them with `value` (CEL). */
function policy(selector: string, value: string, namespace: string): string {
  return `${annotatingPolicy({ annotations: value, namespaceSelector: selector })}---\n${namespace}`;
}

const REVIEW = configMapReview('shop');

async function annotations(set: string): Promise<unknown> {
  const reply = await mutateWidget(set, REVIEW);
  expect(reply.status?.message).toBeUndefined();
  return addedAt(reply, '/metadata/annotations');
}

describe('a Namespace of the policy sources', () => {
  it('is selected by its kubernetes.io/metadata.name label, which it was not written with', async () => {
    const set = policy(
      '{ matchExpressions: [{ key: kubernetes.io/metadata.name, operator: In, values: [shop] }] }',
      '{"matched": "yes"}',
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop }',
    );
    expect(await annotations(set)).toEqual({ matched: 'yes' });
  });

  it('is not selected by NotIn of its own name', async () => {
    const set = policy(
      '{ matchExpressions: [{ key: kubernetes.io/metadata.name, operator: NotIn, values: [shop] }] }',
      '{"matched": "yes"}',
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop, labels: { team: a } }',
    );
    expect(await annotations(set)).toBeUndefined();
  });

  it('is namespaceObject with that label, phase Active and the kubernetes finalizer', async () => {
    const set = policy(
      '{}',
      '{"label.team": namespaceObject.metadata.labels.team, "label.name": namespaceObject.metadata.labels["kubernetes.io/metadata.name"], "phase": namespaceObject.status.phase, "finalizers": namespaceObject.spec.finalizers.join(",")}',
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop, labels: { team: a } }',
    );
    expect(await annotations(set)).toEqual({ 'label.team': 'a', 'label.name': 'shop', phase: 'Active', finalizers: 'kubernetes' });
  });

  it('keeps a phase it was written with, and a label it was given with another value is its name', async () => {
    const set = policy(
      '{}',
      '{"name": namespaceObject.metadata.labels["kubernetes.io/metadata.name"], "phase": namespaceObject.status.phase, "finalizers": namespaceObject.spec.finalizers.join(",")}',
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop, labels: { kubernetes.io/metadata.name: other } }\nspec: { finalizers: [example.com/hold] }\nstatus: { phase: Terminating }',
    );
    expect(await annotations(set)).toEqual({ name: 'shop', phase: 'Terminating', finalizers: 'example.com/hold,kubernetes' });
  });

  it('is read as written for amender test, as Kyverno\'s CLI reads it (unstorableObjects keep)', () => {
    const doc = 'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop, labels: { team: a } }';
    const labels = (keep: boolean) =>
      (buildPolicySet(parseDocuments('ns.yaml', doc), keep ? { unstorableObjects: 'keep' } : {}).objects.namespace('shop')?.metadata as { labels?: unknown }).labels;
    expect(labels(true)).toEqual({ team: 'a' });
    expect(labels(false)).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'shop' });
  });
});
