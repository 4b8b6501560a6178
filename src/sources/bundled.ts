/** The `bundled` source: the documents compiled into the bundle at build time (see bundle.ts). */
import { parseJson } from '../json/index.js';
import { BUNDLE_FORMAT, bundledDocuments, bundledLabel, loadBundledPatchTemplates, type PolicyBundle } from './bundle.js';
import { SourceError, type PolicySource } from './types.js';

export function bundledSource(bundle: PolicyBundle): PolicySource {
  if (bundle?.format !== BUNDLE_FORMAT || !Array.isArray(bundle.files)) {
    throw new SourceError('bundled', `not a policy bundle of format ${BUNDLE_FORMAT} (rebuild with npm run build)`);
  }
  try {
    loadBundledPatchTemplates(bundle, parseJson);
  } catch (err) {
    throw new SourceError('bundled', `${(err as Error).message} (rebuild with npm run build)`);
  }
  const files = new Map(bundle.files.map((f) => [f.name, f]));
  return {
    uri: 'bundled',
    async list() {
      return bundle.files.map((f) => ({ name: f.name, label: bundledLabel(f.name), version: f.version }));
    },
    async fetch(entry, options) {
      const file = files.get(entry.name);
      if (!file) return { status: 'gone' };
      if (options.ifNoneMatch === file.version) return { status: 'not-modified' };
      const documents = bundledDocuments(file, parseJson);
      // Validated as one set by the build (bundlePolicies): its policies compile on first use (buildPolicySet).
      return { status: 'parsed', version: file.version, parsed: { source: bundledLabel(file.name), documents, problems: [], validatedAtBuild: true } };
    },
  };
}
