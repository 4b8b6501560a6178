/**
 * Type schemas and merges: the built-in kinds' merge facts, CRD schemas, server-side apply
 * (MutatingAdmissionPolicy ApplyConfiguration), strict decoding of built-in kinds, and Kyverno's
 * strategic merge. See README.md in this folder.
 */
export { SchemaRegistry, parseApiVersion, type GroupVersionKind } from './registry.js';
export { builtinKinds } from './builtin.js';
export { CrdError } from './crd.js';
export type { ObjectType, Atom, ListDef, MapDef, FieldDef, TypeRef, ScalarKind, ListType } from './types.js';
export { resolve, NamedRef, DEDUCED, UNTYPED_ATOMIC } from './types.js';
export { applyConfiguration, apiVersionOf, ApplyConfigurationError, type ApplyOptions, type ApplyResult } from './ssa/apply.js';
export { strictDecode, StrictDecodeError } from './strict.js';
export { connectOptionsType } from './connect-options.js';
export { fromUnstructuredError } from './from-unstructured.js';
export { goRoundTrip } from './go-round-trip.js';
export { applyCrdDefaults, type CrdDefaults } from './crd-defaults.js';
export { strategicMerge, StrategicMergeCache, StrategicMergeError, type SizeRecord, type StrategicMergeOptions, type StrategicMergeResult } from './smp/merge.js';
export { StrategicMergeChain } from './smp/chain.js';
