/** `--policies PATH...` → a compiled policy set, with the documents it was built from. */
import { isJsonObject, type JsonObject } from '../json/index.js';
import { buildPolicySet, parseDocuments, type PolicySet } from '../policyset/index.js';
import type { CliIO } from './io.js';
import { readPolicyTexts } from './policy-files.js';

export interface LoadedPolicies {
  set: PolicySet;
  /** Every document read (policies, bindings, params, Namespaces, CRDs). */
  documents: JsonObject[];
}

export async function loadPolicies(paths: readonly string[], io: CliIO): Promise<LoadedPolicies> {
  const texts = await readPolicyTexts(paths, io);
  const parsed = texts.map((t) => parseDocuments(t.source, t.text));
  const set = buildPolicySet(parsed);
  const documents = parsed.flatMap((p) => p.documents.map((d) => d.value)).filter(isJsonObject);
  return { set, documents };
}

/** One line per problem: `source#document[item] Kind/name: field: message (effect)`. */
export function formatProblems(set: PolicySet): string {
  return set.problems
    .map((p) => {
      const where = `${p.source}#${p.index}${p.item !== undefined ? `[${p.item}]` : ''}`;
      const what = p.kind || p.name ? ` ${p.kind ?? '?'}/${p.name ?? '?'}` : '';
      const field = p.path ? `${p.path}: ` : '';
      // A parser's message may carry a code excerpt on more lines: keep the first line greppable.
      const [first, ...more] = p.message.trimEnd().split('\n');
      const effect = p.effect === 'ignored' ? 'ignored' : 'kept, errors at evaluation';
      const rest = more.filter((l) => l.trim() !== '').map((l) => `    ${l}\n`).join('');
      return `${where}${what}: ${field}${first} (${effect})\n${rest}`;
    })
    .join('');
}
