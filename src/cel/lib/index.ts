/**
 * The CEL function libraries of the Kubernetes environment, in registration order. The environment
 * registers each with `library.register(env)` and charges `library.callCost(...)` per call.
 */
import type { CelLibrary } from '../library.js';
import { regexLibrary } from './regex.js';
import { stringsLibrary } from './strings.js';

export const libraries: readonly CelLibrary[] = [stringsLibrary, regexLibrary];

export { regexLibrary } from './regex.js';
export { stringsLibrary } from './strings.js';
export { findRegexLiteralErrors, regexLiteralCompileError } from './regex.js';
export { compileRe2, validateRegexLiteral, RegexSyntaxError, type Re2Regex } from './re2.js';
