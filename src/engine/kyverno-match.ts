/**
 * Whether a Kyverno policy would run for a request, from its `match`/`exclude` blocks alone (no
 * preconditions, no context, no JMESPath): the cheap test that decides which policies not yet run are
 * answered by their failurePolicy once a review was stopped.
 */
import type { AdmissionRequest } from '../admission/types.js';
import { isJsonObject, type JsonValue } from '../json/index.js';
import type { CompiledKyvernoPolicy } from '../kyverno/index.js';
import { objectNamespace, whyNotMatched, type MatchSubject } from '../kyverno/match.js';

function subjectOf(request: AdmissionRequest, object: JsonValue | null, namespaceLabels: Record<string, string> | undefined): MatchSubject {
  const user = request.userInfo ?? {};
  return {
    resource: isJsonObject(object) ? object : {},
    group: request.kind?.group ?? '',
    version: request.kind?.version ?? '',
    kind: request.kind?.kind ?? '',
    subresource: request.subResource ?? '',
    operation: request.operation,
    namespace: request.namespace ?? '',
    namespaceLabels,
    username: user.username ?? '',
    groups: user.groups ?? [],
    roles: [],
    clusterRoles: [],
    hasUserInfo: (user.username ?? '') !== '' || (user.groups?.length ?? 0) > 0,
  };
}

/** The policies of `policies` with at least one rule whose match/exclude selects the request. */
export function kyvernoPoliciesMatching(
  policies: readonly CompiledKyvernoPolicy[],
  request: AdmissionRequest,
  object: JsonValue | null,
  namespaceLabels: Record<string, string> | undefined,
): CompiledKyvernoPolicy[] {
  // Kyverno's mutating webhook leaves everything but CREATE and UPDATE alone (src/kyverno/run.ts).
  if (object === null || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return [];
  const subject = subjectOf(request, object, namespaceLabels);
  const namespace = objectNamespace(object, request.namespace ?? '');
  return policies.filter((policy) => {
    if (!policy.admission || (policy.namespace !== undefined && policy.namespace !== namespace)) return false;
    return policy.rules.some((rule) => {
      try {
        return whyNotMatched(rule.match, rule.exclude, subject) === undefined;
      } catch {
        // A fact the match needs is missing: the rule would fail, so the policy is answered.
        return true;
      }
    });
  });
}
