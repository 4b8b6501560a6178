export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from './types.js';
export { isJsonObject } from './types.js';
export { parseJson, JsonParseError, DEFAULT_MAX_DEPTH, type ParseJsonOptions } from './parse.js';
export { hasFloatLiterals, isFloatLiteral, markFloatLiteral } from './float-literals.js';
export { cloneJson, shallowCopyObject, sliceArray } from './clone.js';
export { jsonEqual } from './equal.js';
export { getOwn, hasOwn, ownMember, setOwn } from './own.js';
export { decodesToItself, utf8Length } from './utf8.js';
export { needsJsonEscape } from './escape.js';
