import type { Status } from '../admission/index.js';
import type { AbortReason, ReviewGuard } from '../guard/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import type { Operation } from '../jsonpatch/index.js';
import type { InvocationTrace } from '../map/index.js';

/** What one policy invocation did, for audit annotations, CLI traces, metrics and logs. */
export interface PolicyOutcome extends InvocationTrace {
  /** `MutatingPolicy`: a Kyverno MutatingPolicy or NamespacedMutatingPolicy (run by the MAP engine). */
  engine: 'MutatingAdmissionPolicy' | 'MutatingPolicy' | 'Kyverno';
  /**
   * Wall time of this invocation (MAP) or policy (Kyverno) in milliseconds, from performance.now; 0 for
   * what never ran (configuration errors, policies answered without running after the guard tripped).
   */
  durationMs: number;
  failurePolicy?: 'Fail' | 'Ignore';
  /** The review guard stopped this policy, or answered it by its failurePolicy without running it. */
  aborted?: AbortReason;
  /**
   * Kyverno: the rules that matched, in the order they ran (status applied/skip/fail/error/…), with the
   * rule's message (the review pool does not carry it across: `detail` holds every rule's).
   */
  rules?: readonly { rule: string; status: string; message?: string; durationMs: number }[];
}

export type EngineResult =
  | {
      allowed: true;
      /** The final object (the received one when nothing changed; null when the request had none). */
      object: JsonValue | null;
      /** RFC 6902 patch from the received object to the final one; empty when nothing changed. */
      patch: Operation[];
      outcomes: PolicyOutcome[];
      warnings: string[];
      /** For the reply's auditAnnotations (Kyverno's `kyverno-mutate`; MAP has none of its own). */
      auditAnnotations: Record<string, string>;
    }
  | { allowed: false; status: Status; outcomes: PolicyOutcome[]; warnings: string[]; auditAnnotations: Record<string, string> };

export interface EngineOptions {
  /**
   * Emulate the reinvocation pass of spec/map.md §11 inside the call (default true): IfNeeded policies
   * that ran run once more when the first pass changed the object.
   */
  reinvocation?: boolean;
  /**
   * Where Namespace objects come from when the policy set has none of that name (e.g. a live lookup).
   * Default: only the set's Namespace documents.
   */
  namespaceLookup?: (name: string) => JsonObject | undefined;
  /**
   * Match a namespace found nowhere by a stand-in labelled only `kubernetes.io/metadata.name`, as
   * Kyverno's CLI matches a MutatingPolicy's namespaceSelector (`namespaceObject` stays null). Default
   * off: the webhook answers such a selector by failurePolicy (DESIGN.md).
   */
  namespaceStandIn?: boolean;
  /**
   * The review's deadline, cancellation and value-size bound (src/guard). Default: a fresh guard with
   * DEFAULT_REVIEW_DEADLINE_MS and DEFAULT_MAX_VALUE_BYTES, started when `evaluate` is called.
   */
  guard?: ReviewGuard;
  /**
   * Called when a policy starts, with its index in `pipelinePolicies(set)` (MAP policies, then Kyverno
   * policies). A MAP policy is started once per invocation (binding × param, and again in the
   * reinvocation pass); a Kyverno policy once, when the Kyverno runner reports its start, else the first
   * Kyverno policy's index is reported when the Kyverno step begins. Once every policy has run, the
   * number of policies is reported (the reply patch is no policy's work). Whoever stops a review from
   * outside (a worker pool) passes the last index seen to `answerStoppedReview`.
   */
  onPolicyStart?: (ordinal: number) => void;
  /**
   * Policies (indexes in `pipelinePolicies(set)`) answered by their failurePolicy without running: their
   * evaluation of this review ran a review worker out of heap (left-out.ts). `onPolicyStart` still
   * reports indexes in the whole set.
   */
  outOfHeap?: readonly number[];
}
