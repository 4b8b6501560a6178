/**
 * The REST resource (plural) of a kind, which an AdmissionReview names beside the kind. A CRD in the
 * policy set says it exactly; for built-in kinds the API server's own rule applies: lower-case the kind
 * and pluralise (`Policy` → `policies`, `Ingress` → `ingresses`), with the few irregular ones listed.
 */
import { getOwn, isJsonObject, type JsonObject } from '../json/index.js';
import { englishPlural } from '../k8s/index.js';

const IRREGULAR: Record<string, string> = {
  endpoints: 'endpoints',
  podsecuritypolicy: 'podsecuritypolicies',
};

export function guessResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (Object.prototype.hasOwnProperty.call(IRREGULAR, lower)) return IRREGULAR[lower];
  return englishPlural(kind);
}

/** The plural a CustomResourceDefinition among `documents` declares for group/kind, if any. */
export function crdResource(documents: readonly JsonObject[], group: string, kind: string): string | undefined {
  for (const doc of documents) {
    if (getOwn(doc, 'kind') !== 'CustomResourceDefinition') continue;
    const spec = getOwn(doc, 'spec');
    if (!isJsonObject(spec) || getOwn(spec, 'group') !== group) continue;
    const names = getOwn(spec, 'names');
    if (isJsonObject(names) && getOwn(names, 'kind') === kind && typeof getOwn(names, 'plural') === 'string') {
      return getOwn(names, 'plural') as string;
    }
  }
  return undefined;
}
