/**
 * Which documents are policies (as opposed to params, Namespaces, ConfigMaps, CRDs): what a source must
 * hold at least one of, or it is reported (a mistyped folder or bucket prefix reads as an empty set).
 */
import { parseApiVersion } from '../schema/index.js';
import { getOwn, type JsonObject } from '../json/index.js';

/**
 * MutatingAdmissionPolicy and its bindings, Kyverno ClusterPolicy / Policy, and every policies.kyverno.io
 * kind (those Amender does not run are reported as problems of their own).
 */
export function isPolicyDocument(document: JsonObject): boolean {
  const apiVersion = getOwn(document, 'apiVersion');
  const kind = getOwn(document, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
  switch (parseApiVersion(apiVersion).group) {
    case 'admissionregistration.k8s.io':
      return kind === 'MutatingAdmissionPolicy' || kind === 'MutatingAdmissionPolicyBinding';
    case 'kyverno.io':
      return kind === 'ClusterPolicy' || kind === 'Policy';
    case 'policies.kyverno.io':
      return true;
    default:
      return false;
  }
}
