import type { PolicySet } from './build.js';
import type { ParsedSource } from './types.js';

/**
 * What the app knows of its policy set at one moment. Sources (bundled, directory, object storage) keep
 * this up to date; the app only reads it, once per request, so a reload never changes a request midway.
 */
export interface PolicySetState {
  /** The set in force; undefined until a first load succeeded. */
  set?: PolicySet;
  /** Where the set comes from, for /readyz and logs (e.g. "bundled", "file:///etc/amender"). */
  source: string;
  /** When the set in force was loaded. */
  loadedAt?: Date;
  /**
   * Problems of the source itself (an unreadable file, unreachable storage) — the set in force is then the
   * last good one. The set's own problems (a broken policy) are in `set.problems`.
   */
  sourceErrors: readonly string[];
  /**
   * Warnings about the sources of the set in force that do not stop it loading: a source that holds no
   * policy document (an empty folder, a mistyped bucket prefix). /readyz shows them; the set is ready.
   */
  warnings?: readonly string[];
  /**
   * Exactly the documents the set in force was built from (refreshers set it): a compiled set holds CEL
   * closures and cannot cross threads, so the Node server's worker pool builds its own copy from these.
   */
  inputs?: readonly ParsedSource[];
  /**
   * Increments with each set applied (refreshers set it); with the set's name it says which build a
   * worker must evaluate against, so a reply never mixes two versions.
   */
  generation?: number;
}

export type PolicySetProvider = () => PolicySetState;

/** A provider for a set that never changes (the CLI, tests, a bundled set). */
export function fixedPolicySet(set: PolicySet, source: string, loadedAt = new Date()): PolicySetProvider {
  const state: PolicySetState = Object.freeze({ set, source, loadedAt, sourceErrors: [] });
  return () => state;
}
