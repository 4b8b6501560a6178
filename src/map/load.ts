/**
 * Loading one MutatingAdmissionPolicy or binding document: decode, apply API defaults, validate.
 * `usable` is false when the API server would have refused the document (it is then left out of the
 * set); the errors are reported either way.
 */
import { documentDepthProblem, type JsonObject } from '../json/index.js';
import { decodeBinding, decodePolicy } from './decode.js';
import { defaultBinding, defaultPolicy } from './defaults.js';
import type { FieldError } from './field-errors.js';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from './types.js';
import { missingNotFoundAction, validateBinding, validatePolicy } from './validate.js';

export interface Loaded<T> {
  value: T;
  usable: boolean;
  /** Errors that make the document unusable. */
  errors: FieldError[];
  /** Errors the API server reports but whose runtime meaning is defined, so the document stays active. */
  warnings: FieldError[];
}

export const POLICY_API_VERSIONS = [
  'admissionregistration.k8s.io/v1',
  'admissionregistration.k8s.io/v1beta1',
  'admissionregistration.k8s.io/v1alpha1',
];

/**
 * The members of a MutatingAdmissionPolicy or binding (and of a Kyverno MutatingPolicy) whose value the
 * depth check looks into, to name the field that nests too deeply (`spec.variables[0].expression`).
 */
export const POLICY_STRUCTURE: ReadonlySet<string> = new Set([
  'metadata',
  'spec',
  'matchConstraints',
  'matchResources',
  'resourceRules',
  'excludeResourceRules',
  'variables',
  'matchConditions',
  'mutations',
  'applyConfiguration',
  'jsonPatch',
  'paramRef',
]);

/**
 * A document nested past MAX_POLICY_DEPTH (1000 levels, the bound Amender's JSON reader holds; YAML stops
 * at 500) is refused by name before anything walks it: only a document built some other way (a library
 * caller's object) can be that deep, and the decoders and validators recurse per level.
 */
export function depthErrors(doc: JsonObject, structure: ReadonlySet<string> = POLICY_STRUCTURE): FieldError[] {
  const problem = documentDepthProblem(doc, structure);
  return problem ? [{ path: problem.path, message: problem.message }] : [];
}

const UNNAMED = { name: '', variables: [], mutations: [], matchConditions: [] };

export function loadPolicy(doc: JsonObject): Loaded<MutatingAdmissionPolicy> {
  const tooDeep = depthErrors(doc);
  if (tooDeep.length > 0) return { value: { ...UNNAMED }, usable: false, errors: tooDeep, warnings: [] };
  const decoded = decodePolicy(doc);
  const policy = defaultPolicy(decoded.value);
  const errors = [...decoded.errors, ...validatePolicy(policy, decoded.meta)];
  return { value: policy, usable: errors.length === 0, errors, warnings: [] };
}

export function loadBinding(doc: JsonObject, apiVersion: string): Loaded<MutatingAdmissionPolicyBinding> {
  const tooDeep = depthErrors(doc);
  if (tooDeep.length > 0) return { value: { name: '', policyName: '' }, usable: false, errors: tooDeep, warnings: [] };
  const decoded = decodeBinding(doc);
  const binding = defaultBinding(decoded.value, apiVersion);
  const errors = [...decoded.errors, ...validateBinding(binding, decoded.meta)];
  // v1 requires parameterNotFoundAction, but the runtime treats its absence as Allow: keep the binding.
  const missing = missingNotFoundAction(binding);
  return { value: binding, usable: errors.length === 0, errors, warnings: missing ? [missing] : [] };
}
