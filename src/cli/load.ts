/**
 * `--policies PATH...` → a compiled policy set, with the documents it was built from. Each PATH is a
 * policy source URI as the server takes it (`file://DIR`, a plain path to a folder or file, `s3://bucket/
 * prefix`, `bundled`), read by the same sources and the same refresher the server uses, so a set that
 * loads here loads there, with the same problems, limits and document order; `-` is standard input.
 */
import { isJsonObject, type JsonObject } from '../json/index.js';
import { buildPolicySet, type BuildOptions, type ParsedSource, type PolicySet } from '../policyset/index.js';
import { PolicySetRefresher, resolveSources, SourceUriError } from '../sources/index.js';
import { CliInputError } from './errors.js';
import type { CliIO } from './io.js';
import { cliIoResolvers, withStdinPolicies } from './io-source.js';

export interface LoadedPolicies {
  set: PolicySet;
  /** Every document read (policies, bindings, params, Namespaces, CRDs). */
  documents: JsonObject[];
  /** What the set was built from, one entry per file or object read. */
  parsed: ParsedSource[];
  /** Warnings about the sources that do not stop the set loading (a source without any policy). */
  warnings: readonly string[];
}

/** `options`: how the set is built (e.g. `contextValues` when Kyverno context values stand in for the cluster). */
export async function loadPolicies(paths: readonly string[], io: CliIO, options: BuildOptions = {}): Promise<LoadedPolicies> {
  let sources;
  try {
    sources = resolveSources(paths, withStdinPolicies(io.policyResolvers?.() ?? cliIoResolvers(io), io), 'the command line');
  } catch (err) {
    if (err instanceof SourceUriError) throw new CliInputError(err.message);
    throw err;
  }
  let parsed: ParsedSource[] = [];
  const refresher = new PolicySetRefresher({
    name: 'cli',
    sources,
    intervalMs: 0,
    build: (documents) => {
      parsed = documents;
      return buildPolicySet(documents, options);
    },
  });
  const result = await refresher.refresh();
  const { set, warnings = [] } = refresher.provider();
  if (result.outcome === 'failed' || !set) throw new CliInputError(`cannot read policies from ${result.errors.join('; ')}`);
  const documents = parsed.flatMap((p) => p.documents.map((d) => d.value)).filter(isJsonObject);
  return { set, documents, parsed, warnings };
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
      const effect = p.effect === 'ignored' ? 'ignored' : 'kept, in force';
      const rest = more.filter((l) => l.trim() !== '').map((l) => `    ${l}\n`).join('');
      return `${where}${what}: ${field}${first} (${effect})\n${rest}`;
    })
    .join('');
}
