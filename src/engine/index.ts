/**
 * The engine: one AdmissionRequest against one PolicySet.
 *
 *   evaluate(set: PolicySet, request: AdmissionRequest, options?: EngineOptions): EngineResult
 *
 *   EngineResult =
 *     | { allowed: true, object, patch: Operation[], outcomes, warnings }
 *         `object` is the final object; `patch` the RFC 6902 diff from `request.object` to it (empty when
 *         nothing changed: send no patch then). Integers stay integers.
 *     | { allowed: false, status: Status, outcomes, warnings }
 *         `status` is ready for the reply: 403 (reason Invalid or Forbidden, message of the first error,
 *         details.causes one per error) for policy errors under failurePolicy Fail; 500 InternalError /
 *         503 ServiceUnavailable for the status errors of spec/map.md §10 that abort whatever the
 *         failurePolicy.
 *   `outcomes` says per invocation what happened (mutated, unchanged, skipped with the reason, error —
 *   `ignored: true` for errors a failurePolicy=Ignore policy dropped), in order, with `pass: 2` for the
 *   emulated reinvocation pass.
 *
 * Pure and synchronous: no I/O, never throws, never changes `set` or `request`. The caller validates
 * the AdmissionReview first (src/admission) and encodes the reply (allowReply / denyReply).
 *
 * EngineOptions: `reinvocation` (default true, spec/map.md §11), `namespaceLookup` (Namespaces beyond the
 * set's own documents, e.g. from a live cluster lookup done by the caller).
 */
export { evaluate } from './evaluate.js';
export type { EngineOptions, EngineResult, PolicyOutcome } from './types.js';
