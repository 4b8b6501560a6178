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

export const libraries: readonly CelLibrary[] = [
  stringsLibrary,
  setsLibrary,
  listsLibrary,
  k8sListsLibrary,
  regexLibrary,
];

export { regexLibrary } from './regex.js';
export { stringsLibrary } from './strings.js';
export { setsLibrary } from './sets.js';
export { listsLibrary } from './lists.js';
export { k8sListsLibrary } from './k8s-lists.js';
export { findRegexLiteralErrors, regexLiteralCompileError } from './regex.js';
export { compileRe2, validateRegexLiteral, RegexSyntaxError, type Re2Regex } from './re2.js';
