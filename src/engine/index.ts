/**
 * The engine: one AdmissionRequest against one PolicySet (src/policyset).
 *
 *   evaluate(set: PolicySet, request: AdmissionRequest, options?: EngineOptions): Promise<EngineResult>
 *
 *   EngineResult =
 *     | { allowed: true, object, patch: Operation[], outcomes, warnings, auditAnnotations }
 *         `object` is the final object; `patch` the RFC 6902 diff from `request.object` to it (empty when
 *         nothing changed: send no patch then). It applies under a strict RFC 6902 applier; integers stay
 *         integers.
 *     | { allowed: false, status: Status, outcomes, warnings, auditAnnotations }
 *         `status` is ready for the reply: 403 (reason Invalid or Forbidden, message of the first error,
 *         details {group, kind: resource, name, causes: one per error}) for MutatingAdmissionPolicy errors
 *         under failurePolicy Fail and for failing Kyverno policies with failurePolicy Fail; 500
 *         InternalError for the status errors of spec/map.md §10 that abort
 *         whatever the failurePolicy (e.g. a JSON-patched built-in object that no longer decodes).
 *   `outcomes` says per invocation what happened (engine, policy, binding, param, pass, result: mutated |
 *   unchanged | skipped | error, detail; `ignored: true` for errors a failurePolicy=Ignore policy dropped),
 *   in the order things ran: MutatingAdmissionPolicies (pass 1, then the emulated reinvocation pass 2),
 *   then Kyverno policies. `auditAnnotations` holds Kyverno's `kyverno-mutate` when a Kyverno rule matched.
 *
 * Order: MutatingAdmissionPolicies by name, their bindings by name, params by namespace/name; then Kyverno
 * ClusterPolicies by name and Policies by namespace/name, starting from the MAP result. A MAP denial stops
 * the pipeline. DELETE (and, for MAP, the admission-policy resources and the authentication and
 * authorization reviews kube-apiserver excludes from every policy) are never mutated.
 *
 * matchPolicy Equivalent: rules match against `request.kind`/`resource` as received (the API server
 * converts the object to the version the webhook's own rules name; see src/map/equivalence.ts).
 * Namespaces come from the set's Namespace documents (plus `options.namespaceLookup`): an unknown
 * namespace gives `namespaceObject == null`, an empty namespaceSelector still matches and a non-empty one
 * is an error under the policy's failurePolicy. `authorizer` in CEL evaluates to an error (no authorizer).
 *
 * Never changes `set` or `request`. Rejects only on an unexpected failure of the engine itself (a bug:
 * not bad input, not a policy's own error, not the guard), which the caller answers with HTTP 500 so the
 * webhook's failurePolicy decides (src/server/review.ts, the one error boundary). Async only because
 * Kyverno context entries may call a live API; with none configured no I/O happens. The caller validates the AdmissionReview first (src/admission) and encodes
 * the reply (allowReply / denyReply).
 *
 * EngineOptions: `reinvocation` (default true, spec/map.md §11: IfNeeded invocations that ran are run once
 * more when the first pass changed the object), `namespaceLookup` (Namespaces beyond the set's documents),
 * `guard` (src/guard: deadline, cancellation, value-size bound; default DEFAULT_REVIEW_DEADLINE_MS and
 * DEFAULT_MAX_VALUE_BYTES from the call), `onPolicyStart(ordinal)` (an index in `pipelinePolicies(set)`),
 * `outOfHeap` (policies answered by failurePolicy without running: they ran a review worker out of heap
 * on this review; left-out.ts).
 *
 * Bounds (issue 9): CEL evaluation looks at the guard's clock on its cost path; CEL concatenation,
 * replace, join, format, flatten, comprehension results, mutation results, JSON patch `copy` and the reply
 * patch are held to the size bound. A size error fails the policy in progress only (its failurePolicy
 * decides; later policies run). A deadline or cancellation fails the policy in progress and answers every
 * policy not yet run that matches cheaply (match constraints and bindings; Kyverno match/exclude) by its
 * failurePolicy without running it: Fail → a 403 naming the policy and "deadline exceeded", Ignore →
 * skipped, reported with `aborted`. Outcomes carry `durationMs`, `failurePolicy` and `aborted`.
 *
 *   pipelinePolicies(set)                      the policies in the order they start (ordinals)
 *   answerStoppedReview(set, request, ordinal, reason)
 *       the answer when the evaluation was stopped from outside (a killed or out-of-heap worker): policy
 *       `ordinal` and the later ones that match cheaply are answered by their failurePolicy; no patch.
 */
export { evaluate } from './evaluate.js';
export { answerStoppedReview } from './stopped.js';
export { pipelinePolicies, type PipelinePolicy } from './pipeline.js';
export type { EngineOptions, EngineResult, PolicyOutcome } from './types.js';
