/**
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1) as the
 * engine holds them after decoding and API defaulting. Optional members are absent when the document
 * left them out (validation reports what is required).
 */
import type { LabelSelector } from './labels.js';

export interface Rule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** `Cluster`, `Namespaced` or `*`; absent only when defaulting was bypassed (matches every scope). */
  scope?: string;
}

export interface RuleWithOperations extends Rule {
  operations: string[];
}

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames: string[];
}

export interface MatchResources {
  /** null = nil (selects nothing; only when defaulting was bypassed). */
  namespaceSelector: LabelSelector | null;
  objectSelector: LabelSelector | null;
  resourceRules: NamedRuleWithOperations[];
  excludeResourceRules: NamedRuleWithOperations[];
  /** null = nil, which behaves as Exact at runtime. */
  matchPolicy: string | null;
}

export interface ParamKind {
  apiVersion: string;
  kind: string;
}

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface Mutation {
  patchType: string;
  /** The expression of `applyConfiguration` or `jsonPatch`, whichever patchType names. */
  applyConfiguration?: { expression: string };
  jsonPatch?: { expression: string };
}

export interface MutatingAdmissionPolicy {
  name: string;
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  variables: NamedExpression[];
  mutations: Mutation[];
  failurePolicy?: string;
  matchConditions: NamedExpression[];
  reinvocationPolicy?: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

export interface MutatingAdmissionPolicyBinding {
  name: string;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}
