import type { JsonObject } from '../json/index.js';

/** One document of a policy source, with where it came from. */
export interface SourceDocument {
  /** The source's name (file path, object key, "bundled:..."). */
  source: string;
  /** Position of the document in its source's stream (0-based). */
  index: number;
  /** Position inside a `List` document's `items`, when the document came from one. */
  item?: number;
  value: JsonObject;
}

/**
 * A problem found while loading a policy set, pointing at the document and field.
 * `effect` says what became of the document: `ignored` = left out of the set (the API server would have
 * refused it, e.g. an expression that does not compile); `kept` = still active (a warning, or a compile
 * error under BuildOptions `compileErrors: 'keep'`: its error surfaces when a request reaches it, under
 * the policy's failurePolicy).
 */
export interface Problem {
  source: string;
  index: number;
  item?: number;
  kind?: string;
  name?: string;
  /** Field path inside the document (`spec.mutations[0].jsonPatch.expression`), "" for the whole document. */
  path: string;
  message: string;
  effect: 'ignored' | 'kept';
}

/** The result of reading one source's text. */
export interface ParsedSource {
  source: string;
  documents: SourceDocument[];
  problems: Problem[];
  /**
   * The documents were validated, compiled, as one whole policy set when the bundle was built (the
   * bundled source, src/sources/bundle.ts): a set made only of such sources has nothing to refuse at load,
   * so buildPolicySet compiles each MutatingAdmissionPolicy when a request first reaches it.
   */
  validatedAtBuild?: boolean;
}
