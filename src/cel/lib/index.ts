/**
 * The CEL function libraries of the Kubernetes environment, in registration order. The environment
 * registers each with `library.register(env)` and charges `library.callCost(...)` per call.
 */
import type { CelLibrary } from '../library.js';
import { regexLibrary } from './regex.js';
import { stringsLibrary } from './strings.js';
import { setsLibrary } from './sets.js';
import { listsLibrary } from './lists.js';
import { k8sListsLibrary } from './k8s-lists.js';
import { quantityLibrary } from './quantity.js';
import { netLibrary } from './net.js';

export const libraries: readonly CelLibrary[] = [
  stringsLibrary,
  setsLibrary,
  listsLibrary,
  k8sListsLibrary,
  regexLibrary,
  quantityLibrary,
  netLibrary,
];

export { regexLibrary } from './regex.js';
export { stringsLibrary } from './strings.js';
export { setsLibrary } from './sets.js';
export { listsLibrary } from './lists.js';
export { k8sListsLibrary } from './k8s-lists.js';
export { quantityLibrary, QUANTITY_TYPE } from './quantity.js';
export { Quantity, parseQuantity } from './quantity-value.js';
export { netLibrary, IP_TYPE, CIDR_TYPE, IPValue, CIDRValue } from './net.js';
export { findRegexLiteralErrors, regexLiteralCompileError } from './regex.js';
export { compileRe2, validateRegexLiteral, RegexSyntaxError, type Re2Regex } from './re2.js';
