/**
 * A review evaluated again without some of its policies: those whose evaluation of it ran a review worker
 * out of heap (src/adapters/pool). kube-apiserver answers a policy that fails at runtime by its
 * failurePolicy and applies the others; a worker that dies loses every policy's mutation with it, so the
 * pool evaluates the review again with the failed policy left out, and the engine answers that policy by
 * its failurePolicy without running it (Ignore: skipped, with a warning; Fail: a denial).
 */
import { boundWarnings, type AdmissionRequest } from '../admission/index.js';
import type { PolicySet } from '../policyset/index.js';
import { policiesWhere } from './pipeline.js';
import { answerLeftOut } from './stopped.js';
import type { EngineResult } from './types.js';

export interface LeftOut {
  /** The set without the policies left out. */
  readonly set: PolicySet;
  /** The policies left out (ordinals of the whole set, ascending). */
  readonly ordinals: readonly number[];
  /**
   * The ordinal in the whole set (`pipelinePolicies`) of a policy's ordinal in `set`; past the last, the
   * whole set's count (what the engine reports once every policy has run).
   */
  ordinalOf(ordinal: number): number;
  /** The result of evaluating `set`, with the policies left out answered by their failurePolicy. */
  answer(result: EngineResult, request: AdmissionRequest): EngineResult;
}

/** `set` without the policies of `ordinals` (of `pipelinePolicies(set)`); undefined when none is in it. */
export function leaveOut(set: PolicySet, ordinals: readonly number[]): LeftOut | undefined {
  const total = set.mutatingPolicies.length + set.kyvernoPolicies.length;
  const out = [...new Set(ordinals)].filter((o) => Number.isSafeInteger(o) && o >= 0 && o < total).sort((a, b) => a - b);
  if (out.length === 0) return undefined;
  const skipped = new Set(out);
  // kept[i]: the whole set's ordinal of the view's policy i.
  const kept: number[] = [];
  for (let o = 0; o < total; o++) if (!skipped.has(o)) kept.push(o);
  const view: PolicySet = { ...set, ...policiesWhere(set, (o) => !skipped.has(o)) };
  return {
    set: view,
    ordinals: out,
    ordinalOf: (ordinal) => (ordinal < 0 ? ordinal : (kept[ordinal] ?? total)),
    answer: (result, request) => {
      const answered = answerLeftOut(set, request, out);
      const outcomes = [...result.outcomes, ...answered.outcomes];
      if (!result.allowed) return { ...result, outcomes };
      if (answered.status) return { allowed: false, status: answered.status, outcomes, warnings: result.warnings, auditAnnotations: result.auditAnnotations };
      return { ...result, outcomes, warnings: boundWarnings([...result.warnings, ...answered.warnings]) };
    },
  };
}
