/**
 * The structural half of the API server's validation of MutatingAdmissionPolicy and its binding
 * (`pkg/apis/admissionregistration/validation/validation.go`). Expressions are checked for presence
 * here; whether they compile is the compiler's report (a policy whose expressions fail to compile stays
 * active, its errors surface at evaluation). A policy or binding with any error reported here would
 * have been refused by the API server, so the policy set leaves it out.
 */
import {
  FieldPath,
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from './field-errors.js';
import { validateLabelSelector } from './labels.js';
import { isDNS1035Label, isDNS1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue } from '../k8s/index.js';
import type { DecodedMeta } from './decode.js';
import type {
  MatchResources,
  Mutation,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  NamedExpression,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
} from './types.js';

export const MAX_MATCH_CONDITIONS = 64;
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const NOT_FOUND_ACTIONS = ['Allow', 'Deny'];

// CEL's reserved words, which a variable name may not be (the apiserver's isCELIdentifier).
const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

function isCelIdentifier(value: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(value) && !CEL_RESERVED.has(value);
}

/** ObjectMeta checks for a cluster-scoped object named like a DNS subdomain. */
export function validateClusterObjectMeta(name: string, meta: DecodedMeta): FieldError[] {
  const path = FieldPath.root('metadata');
  const errs: FieldError[] = [];
  if (!name) errs.push(required(path.child('name'), 'name or generateName is required'));
  else for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(path.child('name'), name, msg));
  if (meta.namespace) errs.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const msg of isQualifiedName(key)) errs.push(invalid(path.child('labels'), key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(invalid(path.child('labels'), value, msg));
  }
  for (const key of Object.keys(meta.annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(invalid(path.child('annotations'), key, msg));
  }
  return errs;
}

function hasWildcard(values: readonly string[]): boolean {
  return values.includes('*');
}

function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const withWildcardSub = new Set<string>(); // x/*
  const withWildcardRes = new Set<string>(); // */x
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(required(path.index(i)));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // As in the reference, only the last main resource decides (an order-dependent quirk kept on purpose).
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (withWildcardRes.has(sub)) errs.push(invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') withWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** The values no rule may hold, shape required or not: an unknown operation… */
function unsupportedOperations(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  rule.operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(path.child('operations').index(i), op, OPERATIONS));
  });
  return errs;
}

/** …or an unknown scope. */
function unsupportedScope(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  return rule.scope !== undefined && !SCOPES.includes(rule.scope) ? [notSupported(path.child('scope'), rule.scope, SCOPES)] : [];
}

/** kube-apiserver's checks of a resource rule (`kube`; Kyverno's MutatingPolicy checks none). */
function validateNamedRule(rule: NamedRuleWithOperations, path: FieldPath, kube: boolean): FieldError[] {
  if (!kube) return [];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  rule.resourceNames.forEach((name, i) => {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(path.child('resourceNames').index(i), name, msg));
    if (names.has(name)) errs.push(duplicate(path.child('resourceNames').index(i), name));
    names.add(name);
  });
  if (rule.operations.length === 0) errs.push(required(path.child('operations')));
  if (rule.operations.length > 1 && hasWildcard(rule.operations)) {
    errs.push(invalid(path.child('operations'), rule.operations, "if '*' is present, must not specify other operations"));
  }
  errs.push(...unsupportedOperations(rule, path));
  if (rule.apiGroups.length === 0) errs.push(required(path.child('apiGroups')));
  if (rule.apiGroups.length > 1 && hasWildcard(rule.apiGroups)) {
    errs.push(invalid(path.child('apiGroups'), rule.apiGroups, "if '*' is present, must not specify other API groups"));
  }
  if (rule.apiVersions.length === 0) errs.push(required(path.child('apiVersions')));
  if (rule.apiVersions.length > 1 && hasWildcard(rule.apiVersions)) {
    errs.push(invalid(path.child('apiVersions'), rule.apiVersions, "if '*' is present, must not specify other API versions"));
  }
  rule.apiVersions.forEach((v, i) => {
    if (v === '') errs.push(required(path.child('apiVersions').index(i)));
  });
  errs.push(...validateResources(rule.resources, path.child('resources')));
  errs.push(...unsupportedScope(rule, path));
  return errs;
}

function validateMatchResources(mr: MatchResources, path: FieldPath, kube: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (mr.matchPolicy === null) errs.push(required(path.child('matchPolicy')));
  else if (kube && !MATCH_POLICIES.includes(mr.matchPolicy)) errs.push(notSupported(path.child('matchPolicy'), mr.matchPolicy, MATCH_POLICIES));
  for (const which of ['namespaceSelector', 'objectSelector'] as const) {
    const selector = mr[which];
    if (selector === null) errs.push(required(path.child(which)));
    else if (kube) errs.push(...validateLabelSelector(selector, path.child(which)));
  }
  mr.resourceRules.forEach((r, i) => errs.push(...validateNamedRule(r, path.child('resourceRules').index(i), kube)));
  mr.excludeResourceRules.forEach((r, i) => errs.push(...validateNamedRule(r, path.child('excludeResourceRules').index(i), kube)));
  return errs;
}

/** MAP-specific: a mutating policy can never match DELETE (reported once per offending entry). */
function validateMutatingOperations(rules: readonly NamedRuleWithOperations[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of rules) {
    for (const op of rule.operations) if (!MUTATING_OPERATIONS.includes(op)) errs.push(notSupported(path, op, MUTATING_OPERATIONS));
  }
  return errs;
}

function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return `unexpected GroupVersion string: ${gv}`;
}

function validateParamKind(pk: ParamKind, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersionPath = path.child('apiVersion');
  if (!pk.apiVersion) {
    errs.push(required(apiVersionPath));
  } else {
    const gv = parseGroupVersion(pk.apiVersion);
    if (typeof gv === 'string') {
      errs.push(invalid(apiVersionPath, pk.apiVersion, gv));
    } else {
      if (gv.group) {
        const msgs = isDNS1123Subdomain(gv.group);
        if (msgs.length) errs.push(invalid(apiVersionPath, gv.group, msgs.join(',')));
      }
      if (!gv.version) {
        errs.push(invalid(apiVersionPath, pk.apiVersion, 'version must be specified'));
      } else {
        const msgs = isDNS1035Label(gv.version);
        if (msgs.length) errs.push(invalid(apiVersionPath, gv.version, msgs.join(',')));
      }
    }
  }
  if (!pk.kind) {
    errs.push(required(path.child('kind')));
  } else {
    const msgs = isDNS1035Label(pk.kind.toLowerCase());
    if (msgs.length) errs.push(invalid(path.child('kind'), pk.kind, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  return errs;
}

function isBlank(s: string): boolean {
  return s.trim() === '';
}

function validateMatchConditions(conditions: readonly NamedExpression[], path: FieldPath, kube: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (kube && conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const p = path.index(i);
    if (isBlank(c.expression)) errs.push(required(p.child('expression')));
    if (!kube) return;
    if (!c.name) {
      errs.push(required(p.child('name')));
      return;
    }
    for (const msg of isQualifiedName(c.name)) errs.push(invalid(p.child('name'), c.name, msg));
    if (names.has(c.name)) errs.push(duplicate(p.child('name'), c.name));
    names.add(c.name);
  });
  return errs;
}

function validateVariables(variables: readonly NamedExpression[], path: FieldPath, kube: boolean): FieldError[] {
  const errs: FieldError[] = [];
  variables.forEach((v, i) => {
    const p = path.index(i);
    if (kube && isBlank(v.name)) errs.push(required(p.child('name'), 'name is not specified'));
    else if (kube && !isCelIdentifier(v.name)) errs.push(invalid(p.child('name'), v.name, 'name is not a valid CEL identifier'));
    if (isBlank(v.expression)) errs.push(required(p.child('expression'), 'expression is not specified'));
  });
  return errs;
}

function validateMutation(m: Mutation, path: FieldPath): FieldError[] {
  if (!m.patchType) return [required(path.child('patchType'))];
  const errs: FieldError[] = [];
  const pair = (
    member: 'jsonPatch' | 'applyConfiguration',
    other: 'jsonPatch' | 'applyConfiguration',
  ): void => {
    const spec = m[member];
    if (!spec) errs.push(required(path.child(member), `must be specified when patchType is ${m.patchType}`));
    else if (isBlank(spec.expression)) errs.push(required(path.child(member, 'expression')));
    if (m[other]) errs.push(invalid(path.child(other), `{${other}}`, `must not be specified when patchType is ${m.patchType}`));
  };
  if (m.patchType === 'JSONPatch') pair('jsonPatch', 'applyConfiguration');
  else if (m.patchType === 'ApplyConfiguration') pair('applyConfiguration', 'jsonPatch');
  else errs.push(notSupported(path.child('patchType'), m.patchType, PATCH_TYPES));
  return errs;
}

/**
 * Whose validation a policy passes. `kubernetes` (the default): kube-apiserver's MutatingAdmissionPolicy
 * validation. `kyverno`: a Kyverno MutatingPolicy's (src/mpol). Its CRD schema has an enum for
 * failurePolicy only, and its admission check (mpol.Validate) only compiles the expressions, so it checks
 * none of what the API server adds beyond what evaluating needs: the shape of resource rules
 * (operations, API groups, versions and resources named, no duplicates or mixed wildcards; such a rule
 * matches nothing), values the API knows (operations, DELETE among them, scopes, matchPolicy,
 * reinvocationPolicy), match condition names (given, unique, qualified names, at most 64 conditions),
 * variable names (CEL identifiers), label selectors (read when a request needs them: an invalid one
 * then fails the policy, src/map/match-resources.ts), and mutations (at least one, each with a known
 * patchType and exactly the member it names; src/mpol skips the others as Kyverno's compiler does).
 */
export interface PolicyValidationOptions {
  api?: 'kubernetes' | 'kyverno';
}

export function validatePolicy(policy: MutatingAdmissionPolicy, meta: DecodedMeta, options: PolicyValidationOptions = {}): FieldError[] {
  const kube = options.api !== 'kyverno';
  const errs = validateClusterObjectMeta(policy.name, meta);
  const spec = FieldPath.root('spec');
  if (policy.failurePolicy === undefined) errs.push(required(spec.child('failurePolicy')));
  else if (!FAILURE_POLICIES.includes(policy.failurePolicy)) errs.push(notSupported(spec.child('failurePolicy'), policy.failurePolicy, FAILURE_POLICIES));
  if (policy.paramKind) errs.push(...validateParamKind(policy.paramKind, spec.child('paramKind')));
  const mc = policy.matchConstraints;
  if (!mc) {
    errs.push(required(spec.child('matchConstraints')));
  } else {
    errs.push(...validateMatchResources(mc, spec.child('matchConstraints'), kube));
    if (mc.resourceRules.length === 0) errs.push(required(spec.child('matchConstraints', 'resourceRules')));
    if (kube) errs.push(...validateMutatingOperations(mc.resourceRules, spec.child('matchConstraints', 'resourceRules', 'operations')));
  }
  errs.push(...validateMatchConditions(policy.matchConditions, spec.child('matchConditions'), kube));
  errs.push(...validateVariables(policy.variables, spec.child('variables'), kube));
  if (kube && policy.mutations.length === 0) errs.push(required(spec.child('mutations'), 'mutations must contain at least one item'));
  if (kube) policy.mutations.forEach((m, i) => errs.push(...validateMutation(m, spec.child('mutations').index(i))));
  if (!policy.reinvocationPolicy) errs.push(required(spec.child('reinvocationPolicy')));
  else if (kube && !REINVOCATION_POLICIES.includes(policy.reinvocationPolicy)) {
    errs.push(notSupported(spec.child('reinvocationPolicy'), policy.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  return errs;
}

/**
 * Problems of a paramRef. `parameterNotFoundAction` missing is reported separately (see
 * `isMissingNotFoundAction`): the API requires it, but the runtime defines its absence (as Allow).
 */
function validateParamRef(ref: ParamRef, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.name) {
    for (const msg of isPathSegmentName(ref.name)) errs.push(invalid(path.child('name'), ref.name, msg));
    if (ref.selector) errs.push(forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (ref.selector) {
    errs.push(...validateLabelSelector(ref.selector, path.child('selector')));
    if (ref.name) errs.push(forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!ref.name && !ref.selector) errs.push(required(path, 'one of name or selector must be specified'));
  const action = ref.parameterNotFoundAction;
  if (action !== undefined && !NOT_FOUND_ACTIONS.includes(action)) errs.push(notSupported(path.child('parameterNotFoundAction'), action, NOT_FOUND_ACTIONS));
  return errs;
}

export function missingNotFoundAction(binding: MutatingAdmissionPolicyBinding): FieldError | undefined {
  if (binding.paramRef && binding.paramRef.parameterNotFoundAction === undefined) {
    return required(FieldPath.root('spec').child('paramRef', 'parameterNotFoundAction'));
  }
  return undefined;
}

export function validateBinding(binding: MutatingAdmissionPolicyBinding, meta: DecodedMeta): FieldError[] {
  const errs = validateClusterObjectMeta(binding.name, meta);
  const spec = FieldPath.root('spec');
  if (!binding.policyName) errs.push(required(spec.child('policyName')));
  else for (const msg of isDNS1123Subdomain(binding.policyName)) errs.push(invalid(spec.child('policyName'), binding.policyName, msg));
  if (binding.paramRef) errs.push(...validateParamRef(binding.paramRef, spec.child('paramRef')));
  if (binding.matchResources) {
    errs.push(...validateMatchResources(binding.matchResources, spec.child('matchResources'), true));
    errs.push(...validateMutatingOperations(binding.matchResources.resourceRules, spec.child('matchResources', 'resourceRules', 'operations')));
  }
  return errs;
}
