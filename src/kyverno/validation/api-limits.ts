/**
 * What Kyverno's API types refuse of a policy's names and annotations before any rule is looked at:
 * - a policy name longer than 63 bytes (api/kyverno/v1/utils.go ValidatePolicyName: the name goes into
 *   a label of its reports), run by ClusterPolicy/Policy.Validate in its policy validation;
 * - a rule name longer than 63 characters (the CRD's `maxLength: 63` on `spec.rules[].name`,
 *   api/kyverno/v1/rule_types.go), checked by the API server and by the Kyverno CLI's loader;
 * - the autogen annotation set to `all` (ValidateAutogenAnnotation: no longer supported);
 * - fields Spec.Validate forbids (spec_types.go): the deprecated `generateExistingOnPolicyUpdate` in
 *   any form, and `validationFailureActionOverrides` in a namespaced Policy;
 * - in a namespaced Policy, a mutate target in another namespace than the policy's
 *   (rule_types.go ValidateMutationRuleTargetNamespace; a variable there is another namespace too);
 * - spec fields of the wrong type (spec_types.go, checked by the CRD schema and Go's decoder): the
 *   booleans Amender reads or ignores, and `validationFailureAction` outside its enum. A string
 *   `background: "false"` would otherwise read as background mode on.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import type { ProblemSink } from './sink.js';

const NAME_MAX = 63;
const AUTOGEN_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';
const utf8 = new TextEncoder();
/** Boolean spec fields not checked where they are read (admission and emitWarning are, in compile.ts). */
const SPEC_BOOLEANS = ['background', 'schemaValidation', 'mutateExistingOnPolicyUpdate', 'generateExisting', 'generateExistingOnPolicyUpdate', 'useServerSideApply'];
const FAILURE_ACTIONS = new Set(['audit', 'enforce', 'Audit', 'Enforce']);

export function apiLimitProblems(document: JsonObject, spec: JsonObject, rules: readonly JsonValue[], report: ProblemSink): void {
  const metadata = getOwn(document, 'metadata');
  const annotations = isJsonObject(metadata) ? getOwn(metadata, 'annotations') : undefined;
  if (isJsonObject(annotations) && getOwn(annotations, AUTOGEN_ANNOTATION) === 'all') {
    report.error('metadata.annotations', "Autogen annotation does not support 'all' anymore, remove the annotation or set it to a valid value");
  }
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  // Go's len: UTF-8 bytes. Measured only past the bound in UTF-16 units, which no longer name can stay under.
  if (typeof name === 'string' && name.length > NAME_MAX / 3 && utf8.encode(name).length > NAME_MAX) {
    report.error('metadata.name', `Too long: may not be more than ${NAME_MAX} bytes`);
  }
  for (const field of SPEC_BOOLEANS) {
    const value = getOwn(spec, field);
    if (value !== undefined && value !== null && typeof value !== 'boolean') report.error(`spec.${field}`, 'must be a boolean');
  }
  const action = getOwn(spec, 'validationFailureAction');
  if (action !== undefined && action !== null && !(typeof action === 'string' && FAILURE_ACTIONS.has(action))) {
    report.error('spec.validationFailureAction', 'must be one of audit, enforce, Audit, Enforce');
  }
  const generateExisting = getOwn(spec, 'generateExistingOnPolicyUpdate');
  if (generateExisting !== undefined && generateExisting !== null) {
    report.error('spec.generateExistingOnPolicyUpdate', 'remove the deprecated field and use spec.generate[*].generateExisting instead');
  }
  const namespaced = getOwn(document, 'kind') === 'Policy';
  const overrides = getOwn(spec, 'validationFailureActionOverrides');
  if (namespaced && Array.isArray(overrides) && overrides.length > 0) {
    report.error('spec.validationFailureActionOverrides', 'Use of validationFailureActionOverrides is supported only with ClusterPolicy');
  }
  // The namespace the policy lives in, as compile.ts takes it (a Policy without one is in "default").
  const ns = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  const policyNamespace = typeof ns === 'string' && ns !== '' ? ns : 'default';
  rules.forEach((rule, i) => {
    if (namespaced) targetNamespaces(rule, i, policyNamespace, report);
    const ruleName = isJsonObject(rule) ? getOwn(rule, 'name') : undefined;
    // OpenAPI's maxLength counts characters (code points), not bytes.
    if (typeof ruleName === 'string' && ruleName.length > NAME_MAX && [...ruleName].length > NAME_MAX) {
      report.error(`spec.rules[${i}].name`, `Too long: may not be more than ${NAME_MAX} characters`);
    }
  });
}

function targetNamespaces(rule: JsonValue, index: number, policyNamespace: string, report: ProblemSink): void {
  const mutate = isJsonObject(rule) ? getOwn(rule, 'mutate') : undefined;
  const targets = isJsonObject(mutate) ? getOwn(mutate, 'targets') : undefined;
  if (!Array.isArray(targets)) return;
  targets.forEach((target, t) => {
    const namespace = isJsonObject(target) ? getOwn(target, 'namespace') : undefined;
    if (typeof namespace === 'string' && namespace !== '' && namespace !== policyNamespace) {
      // Kyverno's path: the rule's `targets`, not `mutate.targets`.
      report.error(`spec.rules[${index}].targets[${t}].namespace`, 'This field can be ignored or should have value of the namespace where the policy is being created');
    }
  });
}
