/**
 * Which documents are Kyverno MutatingPolicies: `policies.kyverno.io` kind MutatingPolicy (cluster-wide;
 * v1alpha1, v1beta1, v1) or NamespacedMutatingPolicy (acts in its own namespace; v1beta1, v1 — Kyverno's
 * CRD serves no v1alpha1 of it and its CLI refuses one: "policy type not supported").
 */
import { getOwn, type JsonObject } from '../json/index.js';

export type MutatingPolicyKind = 'MutatingPolicy' | 'NamespacedMutatingPolicy';

/** The versions Kyverno's CRDs serve, per kind (config/crds/policies.kyverno.io). */
const SERVED: Readonly<Record<MutatingPolicyKind, readonly string[]>> = {
  MutatingPolicy: ['policies.kyverno.io/v1alpha1', 'policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1'],
  NamespacedMutatingPolicy: ['policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1'],
};

/** Every apiVersion of either kind. */
export const MUTATING_POLICY_API_VERSIONS: readonly string[] = SERVED.MutatingPolicy;

/** The apiVersions Kyverno serves `kind` in; undefined for a kind that is neither. */
export function mutatingPolicyApiVersions(kind: string): readonly string[] | undefined {
  return kind === 'MutatingPolicy' || kind === 'NamespacedMutatingPolicy' ? SERVED[kind] : undefined;
}

export function mutatingPolicyKind(doc: JsonObject): MutatingPolicyKind | undefined {
  const apiVersion = getOwn(doc, 'apiVersion');
  const kind = getOwn(doc, 'kind');
  if (typeof apiVersion !== 'string' || (kind !== 'MutatingPolicy' && kind !== 'NamespacedMutatingPolicy')) return undefined;
  return SERVED[kind].includes(apiVersion) ? kind : undefined;
}

export function isMutatingPolicyDocument(doc: JsonObject): boolean {
  return mutatingPolicyKind(doc) !== undefined;
}
