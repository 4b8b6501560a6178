/**
 * The CEL function libraries of the Kubernetes environment, in registration order. The environment
 * registers each with `library.register(registrar)` and charges `library.callCost(...)` per call
 * (contract: src/cel/library.ts).
 */
import type { CelLibrary } from '../library.js';
import { regexLibrary } from './regex.js';
import { kubernetesStringsLibrary, stringsLibrary } from './strings.js';
import { setsLibrary } from './sets.js';
import { listsLibrary } from './lists.js';
import { k8sListsLibrary } from './k8s-lists.js';
import { quantityLibrary } from './quantity.js';
import { netLibrary } from './net.js';
import { semverLibrary } from './semver.js';
import { urlLibrary } from './url.js';
import { formatLibrary } from './k8s-format.js';
import { authzLibrary } from './authz.js';
import { jsonPatchLibrary } from './jsonpatch.js';
import { bindingsLibrary } from './bindings.js';

export const libraries: readonly CelLibrary[] = [
  stringsLibrary,
  setsLibrary,
  listsLibrary,
  k8sListsLibrary,
  regexLibrary,
  quantityLibrary,
  netLibrary,
  semverLibrary,
  urlLibrary,
  formatLibrary,
  authzLibrary,
  jsonPatchLibrary,
  bindingsLibrary,
];

/**
 * The libraries of Kubernetes' own environments: the above, with cel-go's strings library at version 2
 * (as kube-apiserver's base environment declares it: no string reverse, the first formatter), and
 * without cel-go's bindings extension (`cel.bind`), which kube-apiserver does not declare.
 */
export const KUBERNETES_LIBRARIES: readonly CelLibrary[] = libraries
  .filter((lib) => lib !== bindingsLibrary)
  .map((lib) => (lib === stringsLibrary ? kubernetesStringsLibrary : lib));

/**
 * Libraries only mutation expressions have (kube-apiserver declares `jsonpatch.escapeKey` in the
 * mutation environment, not for matchConditions): skip these when composing that environment.
 */
export const MUTATION_ONLY_LIBRARIES: ReadonlySet<string> = new Set([jsonPatchLibrary.name]);

export { regexLibrary } from './regex.js';
export { kubernetesStringsLibrary, stringsLibrary } from './strings.js';
export { setsLibrary } from './sets.js';
export { listsLibrary } from './lists.js';
export { k8sListsLibrary } from './k8s-lists.js';
export { quantityLibrary, QUANTITY_TYPE } from './quantity.js';
export { Quantity, parseQuantity } from './quantity-value.js';
export { kubernetesEqualsCost } from './equals-cost.js';
export { netLibrary, IP_TYPE, CIDR_TYPE, IPValue, CIDRValue } from './net.js';
export { semverLibrary, SEMVER_TYPE, Semver } from './semver.js';
export { urlLibrary, URL_TYPE, URLValue } from './url.js';
export { formatLibrary, FORMAT_TYPE, NamedFormat } from './k8s-format.js';
export { jsonPatchLibrary } from './jsonpatch.js';
export { bindingsLibrary } from './bindings.js';
export {
  authzLibrary,
  createAuthorizerValue,
  serviceAccountUser,
  AUTHORIZER_TYPE,
  RESOURCE_CHECK_TYPE,
  AuthorizerValue,
  type Authorizer,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type RequestResource,
  type UserInfo,
} from './authz.js';
export type { FieldRequirement } from './field-selector.js';
export type { LabelRequirement, LabelOperator } from './label-selector.js';
export { compileRe2, validateRegexLiteral, RegexSyntaxError, type Re2Regex } from './re2.js';
