import type { Status } from '../admission/types.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import type { Operation } from '../jsonpatch/index.js';
import type { InvocationTrace } from '../map/dispatch.js';

/** What one policy invocation did, for audit annotations and CLI traces. */
export interface PolicyOutcome extends InvocationTrace {
  engine: 'MutatingAdmissionPolicy' | 'Kyverno';
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
}
