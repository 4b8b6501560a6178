/**
 * A policy set whose review runs for seconds of CEL, each call inside the per-call cost limit, so that only
 * the review's deadline stops it, and the deadline a denial names: the deadline tests of the serverless
 * adapters read what deadline a review was given, never how long it took.
 */

/** Some milliseconds of CEL per evaluation. */
const HEAVY = 'lists.range(300).map(x, lists.range(300).filter(y, y % 7 == x % 7).size()).size()';

/** One MutatingAdmissionPolicy (failurePolicy Fail, Pods on CREATE) with 200 bindings. */
export const HEAVY_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: heavy}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: ${JSON.stringify(`Object{metadata: Object.metadata{labels: {"heavy": string(${HEAVY})}}}`)}
${Array.from({ length: 200 }, (_, i) => `---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: heavy-${i}}\nspec: {policyName: heavy}\n`).join('')}`;

export type DeadlineReply = { response: { allowed: boolean; status?: { details?: { causes?: { message: string }[] } } } };

/** The deadline a denial's causes name (NaN when none does). */
export const deadlineOf = (reply: DeadlineReply): number => Number(/took longer than (\d+) ms/.exec(JSON.stringify(reply.response.status?.details?.causes ?? []))?.[1]);
