/**
 * Warnings about a source that reads fine but holds no policy (issue 10): a typo in a folder or bucket
 * prefix lists nothing, and the set would quietly hold nothing from it. The set still loads (ready), and
 * the warning shows in the logs, in /readyz `warnings` and in `amender validate`.
 */
import { isJsonObject } from '../json/index.js';
import { isPolicyDocument, type ParsedSource, type PolicySet } from '../policyset/index.js';

/** One warning for a source whose files or objects hold no policy document, else undefined. */
export function emptySourceWarning(uri: string, parsed: readonly ParsedSource[]): string | undefined {
  const documents = parsed.flatMap((p) => p.documents);
  if (documents.some((d) => isPolicyDocument(d.value))) return undefined;
  if (parsed.length === 0) return `policy source ${uri} holds no files or objects: nothing is loaded from it (is the path or prefix right?)`;
  if (documents.length === 0) return `policy source ${uri} holds ${parsed.length} file${parsed.length === 1 ? '' : 's'} but no documents: nothing is loaded from it`;
  return `policy source ${uri} holds no policy (MutatingAdmissionPolicy, its bindings, Kyverno ClusterPolicy/Policy or policies.kyverno.io kinds): its ${documents.length} document${documents.length === 1 ? ' is' : 's are'} only read as params, Namespaces, ConfigMaps or CRDs`;
}

/**
 * One warning per MutatingAdmissionPolicy of the set that no binding names: it mutates nothing (the API
 * server runs a policy only through its bindings). A binding deleted, misnamed, or not yet written (its
 * file cut short after the policy's document) leaves a policy loaded and silent; this says so.
 */
export function unboundPolicyWarnings(set: PolicySet, parsed: readonly ParsedSource[]): string[] {
  const unbound = set.mutatingPolicies.filter((p) => p.kyverno === undefined && p.bindings.length === 0).map((p) => p.policy.name);
  if (unbound.length === 0) return [];
  const where = new Map<string, string>();
  for (const source of parsed) {
    for (const doc of source.documents) {
      const metadata = doc.value.metadata;
      const name = isJsonObject(metadata) ? metadata.name : undefined;
      if (doc.value.kind === 'MutatingAdmissionPolicy' && typeof name === 'string' && !where.has(name)) where.set(name, doc.source);
    }
  }
  return unbound.map((name) => {
    const at = where.get(name);
    return `MutatingAdmissionPolicy ${name}${at ? ` (${at})` : ''} has no MutatingAdmissionPolicyBinding naming it: it mutates nothing`;
  });
}
