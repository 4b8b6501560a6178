/** Policies for the review-pool tests: a MutatingAdmissionPolicy that labels Pods, with its bindings. */
import { buildPolicySet, parseDocuments } from '../../../src/policyset/index.js';
import type { PolicySetState } from '../../../src/server/index.js';

/** A set's state as a refresher makes it (the set and the documents it was built from): what a pool needs. */
export function refresherState(yaml: string, generation = 1): PolicySetState {
  const parsed = parseDocuments('test.yaml', yaml);
  return { set: buildPolicySet([parsed]), inputs: [parsed], generation, source: 'test', sourceErrors: [] };
}

const DIGITS = '[0,1,2,3,4,5,6,7,8,9]';

/** A matchCondition that is true but costs 10,000 comprehension steps per binding: a slow, bounded review. */
export const SLOW_CONDITION = `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, a + b + c + d >= 0))))`;

/**
 * Policy `name` adding the label `label: "yes"` to created Pods (failurePolicy Fail), with `bindings`
 * bindings named `<name>-<i>`; each binding evaluates `condition` when given, `conditionCopies` times (as
 * that many matchConditions): a review `conditionCopies` times as slow, without more documents to load.
 */
export function labelPolicy(name: string, label: string, bindings: number, condition?: string, conditionCopies = 1): string {
  const conditions = condition
    ? `  matchConditions:\n${Array.from({ length: conditionCopies }, (_, i) => `    - {name: slow-${i}, expression: '${condition}'}\n`).join('')}`
    : '';
  let yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
${conditions}  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"${label}": "yes"}}}'
`;
  for (let i = 0; i < bindings; i++) {
    yaml += `---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: ${name}-${i}}\nspec: {policyName: ${name}}\n`;
  }
  return yaml;
}

/** A MutatingAdmissionPolicy (v1) adding the label `name: value` to created Pods, with one binding of its name. */
export function labelling(name: string, failurePolicy: 'Fail' | 'Ignore', value = 'yes'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"${name}": "${value}"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}}
`;
}

/** A Kyverno ClusterPolicy adding the label `name: value` to Pods. */
export function kyvernoLabelling(name: string, failurePolicy: 'Fail' | 'Ignore', value = 'yes'): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: ${failurePolicy}
  rules:
    - name: label
      match:
        any:
          - resources: {kinds: [Pod]}
      mutate:
        patchStrategicMerge:
          metadata:
            labels: {${name}: "${value}"}
`;
}
