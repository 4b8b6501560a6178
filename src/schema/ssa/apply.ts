import { getOwn, isJsonObject, setOwn, withNumberMarksOf, type JsonObject, type JsonValue } from '../../json/index.js';
import type { ObjectType } from '../types.js';
import { findAtomics } from './atomics.js';
import { smdMerge } from './merge.js';
import { formatSmdErrors, validateTyped } from './validate.js';

/**
 * Why an ApplyConfiguration could not be applied. `message` is the text kube-apiserver puts after
 * "error applying patch: " (MutatingAdmissionPolicy, spec/map.md §9.4).
 */
export class ApplyConfigurationError extends Error {
  override name = 'ApplyConfigurationError';
  constructor(
    /** patch: not valid for the schema; atomic: sets an atomic value; live: the object itself is not valid; merge: the merge failed. */
    readonly stage: 'input' | 'patch' | 'atomic' | 'live' | 'merge',
    message: string,
  ) {
    super(message);
  }
}

export type ApplyResult = { ok: true; object: JsonObject } | { ok: false; error: ApplyConfigurationError };

export interface ApplyOptions {
  /**
   * A version of `live` for the same type known to pass the live check (one that passed it or came out of
   * this function, or one the caller vouches for, such as the object the API server sent), from which
   * `live` was derived by copy-on-write edits (e.g. a JSON patch): the live check then looks only at what
   * differs from it. A caller that passes it keeps track of checked versions itself, and the function
   * remembers nothing (otherwise it remembers its results, see knownValid).
   */
  checked?: JsonValue;
  /**
   * `merge`: atomic lists, maps and structs of the patch are merged as server-side apply merges them
   * (replaced whole) instead of refused: Kyverno's MutatingPolicy with spec.evaluation.useServerSideApply
   * drops kube-apiserver's validatePatch guard and nothing else (mpol compiler smd.go). Default `refuse`.
   */
  atomics?: 'refuse' | 'merge';
}

/** `apps/v1` or `v1` for the type's group and version. */
export function apiVersionOf(type: ObjectType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/**
 * Server-side-apply of a MutatingAdmissionPolicy ApplyConfiguration (kube-apiserver's
 * ApplyStructuredMergeDiff): the patch gets the object's apiVersion/kind, is converted against the schema
 * (`field not declared in schema`, scalar kinds, duplicate keys), may not set atomic lists/maps/structs,
 * and is merged into `live` with structured-merge-diff's rules. No field managers; nothing is ever deleted.
 * Never throws for bad input; never modifies `live` or `patch`.
 */
export function applyConfiguration(type: ObjectType, live: JsonValue, patch: JsonValue, options?: ApplyOptions): ApplyResult {
  if (!isJsonObject(live)) return fail('input', 'the object to patch is not a JSON object');
  if (!isJsonObject(patch)) return fail('input', 'the apply configuration is not a JSON object');

  const stamped: JsonObject = {};
  for (const key of Object.keys(patch)) setOwn(stamped, key, patch[key]);
  withNumberMarksOf(patch, stamped);
  // kube-apiserver stamps the object's own apiVersion/kind, not the type's: they differ only when the object
  // was not converted to the request's kind (Kyverno's CLI sends a subresource's object, e.g. a Binding, with
  // its parent's kind), and the object keeps what it is.
  const liveApiVersion = getOwn(live, 'apiVersion');
  const liveKind = getOwn(live, 'kind');
  stamped.apiVersion = typeof liveApiVersion === 'string' && liveApiVersion !== '' ? liveApiVersion : apiVersionOf(type);
  stamped.kind = typeof liveKind === 'string' && liveKind !== '' ? liveKind : type.kind;

  const patchErrors = validateTyped(stamped, type.root, false);
  if (patchErrors.length > 0) return fail('patch', `failed to convert patch object to typed object: ${formatSmdErrors(patchErrors)}`);
  const atomics = options?.atomics === 'merge' ? [] : findAtomics(stamped, type.root);
  if (atomics.length > 0) {
    return fail('atomic', `invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`);
  }
  const checked = options?.checked;
  if (checked !== undefined ? live !== checked : !isKnownValid(type, live)) {
    const liveErrors = validateTyped(live, type.root, true, checked);
    if (liveErrors.length > 0) return fail('live', `failed to convert original object to typed object: ${formatSmdErrors(liveErrors)}`);
  }
  const { value, errors } = smdMerge(live, stamped, type.root);
  if (errors.length > 0) return fail('merge', `failed to merge patch: ${formatSmdErrors(errors)}`);
  if (!isJsonObject(value)) return fail('merge', 'failed to merge patch: the result is not an object');
  if (checked === undefined) markValid(type, value);
  return { ok: true, object: value };
}

function fail(stage: ApplyConfigurationError['stage'], message: string): ApplyResult {
  return { ok: false, error: new ApplyConfigurationError(stage, message) };
}

/**
 * Results of our own merges, per schema: the merge of a valid object and a valid patch is valid, so when a
 * later ApplyConfiguration of the same request starts from it, its conversion check can be skipped
 * (documents are immutable by convention, so the mark stays true).
 */
const knownValid = new WeakMap<object, WeakSet<object>>();

function isKnownValid(type: ObjectType, obj: JsonObject): boolean {
  return knownValid.get(type.root)?.has(obj) ?? false;
}

function markValid(type: ObjectType, obj: JsonObject): void {
  let set = knownValid.get(type.root);
  if (!set) knownValid.set(type.root, (set = new WeakSet()));
  set.add(obj);
}
