/**
 * Which documents are Kyverno MutatingPolicies: `policies.kyverno.io` v1alpha1, v1beta1 or v1,
 * kind MutatingPolicy (cluster-wide) or NamespacedMutatingPolicy (acts in its own namespace).
 */
import { getOwn, type JsonObject } from '../json/index.js';

export const MUTATING_POLICY_API_VERSIONS: readonly string[] = ['policies.kyverno.io/v1alpha1', 'policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1'];

export type MutatingPolicyKind = 'MutatingPolicy' | 'NamespacedMutatingPolicy';

export function mutatingPolicyKind(doc: JsonObject): MutatingPolicyKind | undefined {
  const apiVersion = getOwn(doc, 'apiVersion');
  const kind = getOwn(doc, 'kind');
  if (typeof apiVersion !== 'string' || !MUTATING_POLICY_API_VERSIONS.includes(apiVersion)) return undefined;
  return kind === 'MutatingPolicy' || kind === 'NamespacedMutatingPolicy' ? kind : undefined;
}

export function isMutatingPolicyDocument(doc: JsonObject): boolean {
  return mutatingPolicyKind(doc) !== undefined;
}
