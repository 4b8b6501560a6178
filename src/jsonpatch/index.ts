/**
 * RFC 6902 JSON Patch for both engines: decode, apply (strict RFC 6902, kube-apiserver's evanphx v4
 * reading for MutatingAdmissionPolicy, Kyverno's evanphx v5 reading) and diff. The reply carries one diff
 * of the final object, so Kyverno's JoinPatches of per-policy patches has no counterpart here.
 */
export type {
  ApplyOptions,
  ApplyResult,
  DecodeResult,
  Flavour,
  Operation,
  OperationName,
  PatchEngine,
} from './types.js';
export { decodePatch } from './decode.js';
export { applyPatch, applyJsonPatch, PatchChain } from './apply.js';
export { createPatch } from './diff.js';
export { checkJsonDepth, checkJsonSize, jsonSizeUpTo } from './size.js';
export {
  escapeToken,
  unescapeToken,
  formatPointer,
  parsePointer,
  parseRfcIndex,
  parseGoInt,
  splitGoPath,
  type GoInt,
  type PointerParse,
} from './pointer.js';
