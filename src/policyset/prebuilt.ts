/**
 * What a build-time policy bundle ships besides its documents: the parsed Kyverno patch templates of the
 * set, so that compiling the bundled policies at cold start parses no patch text. Sources see only this
 * face; how the engine records and reuses its templates stays inside src/kyverno.
 */
import { addPatchTemplates, recordPatchTemplates, type PatchTemplateEntry } from '../kyverno/index.js';
import { buildPolicySet, type BuildOptions, type PolicySet } from './build.js';

export type { PatchTemplateEntry };

/** Builds the set as buildPolicySet does, and returns the patch templates its compilation parsed. */
export function buildPolicySetWithTemplates(
  input: Parameters<typeof buildPolicySet>[0],
  options?: BuildOptions,
): { set: PolicySet; patchTemplates: PatchTemplateEntry[] } {
  const { result: set, entries } = recordPatchTemplates(() => buildPolicySet(input, options));
  return { set, patchTemplates: entries };
}

/** Makes templates from a bundle known before its policies are compiled. */
export function preloadPatchTemplates(entries: readonly PatchTemplateEntry[]): void {
  addPatchTemplates(entries);
}
