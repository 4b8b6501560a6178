/**
 * Warnings about a source that reads fine but holds no policy (issue 10): a typo in a folder or bucket
 * prefix lists nothing, and the set would quietly hold nothing from it. The set still loads (ready), and
 * the warning shows in the logs, in /readyz `warnings` and in `amender validate`.
 */
import { isPolicyDocument, type ParsedSource } from '../policyset/index.js';

/** One warning for a source whose files or objects hold no policy document, else undefined. */
export function emptySourceWarning(uri: string, parsed: readonly ParsedSource[]): string | undefined {
  const documents = parsed.flatMap((p) => p.documents);
  if (documents.some((d) => isPolicyDocument(d.value))) return undefined;
  if (parsed.length === 0) return `policy source ${uri} holds no files or objects: nothing is loaded from it (is the path or prefix right?)`;
  if (documents.length === 0) return `policy source ${uri} holds ${parsed.length} file${parsed.length === 1 ? '' : 's'} but no documents: nothing is loaded from it`;
  return `policy source ${uri} holds no policy (MutatingAdmissionPolicy, its bindings, Kyverno ClusterPolicy/Policy or policies.kyverno.io kinds): its ${documents.length} document${documents.length === 1 ? ' is' : 's are'} only read as params, Namespaces, ConfigMaps or CRDs`;
}
