/**
 * Applying the value a mutation expression produced to the current object (spec/map.md §8.3, §9.4):
 * JSON patches with kube-apiserver's applier (evanphx v4: a failed `test` leaves the object unchanged,
 * `replace` of a missing member adds it, negative indices), apply configurations as server-side apply
 * against the kind's schema. Never changes its inputs.
 */
import type { GroupVersionKind } from '../admission/index.js';
import type { ReviewGuard } from '../guard/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import { applyJsonPatch, type ApplyResult } from '../jsonpatch/index.js';
import { applyConfiguration, applyCrdDefaults, connectOptionsType, fromUnstructuredError, goRoundTrip, strictDecode, type ObjectType, type SchemaRegistry, type TypeRef } from '../schema/index.js';
import { internalError } from './errors.js';
import { decodeTypeMeta, unstructuredTypeMetaError } from './type-meta.js';
import type { MutationOutcome } from './dispatch.js';

export interface SchemaContext {
  schemas: SchemaRegistry;
}

/**
 * The kind's schema, or SMD's deduced one for a kind the registry does not know: a webhook cannot know
 * every CRD of a cluster (kube-apiserver, which does, answers 503 there; spec/map.md §9.4).
 */
function schemaFor(kind: GroupVersionKind, ctx: SchemaContext): ObjectType {
  // Every mutation of a request asks with the same kind object and registry (a registry never changes):
  // the last answer is kept, which spares the registry's key string and map lookups.
  if (kind === last.kind && ctx.schemas === last.schemas) return last.schema!;
  const schema = ctx.schemas.lookupGvk(kind) ?? ctx.schemas.deduced(kind);
  last.kind = kind;
  last.schemas = ctx.schemas;
  last.schema = schema;
  return schema;
}

const last: { kind?: GroupVersionKind; schemas?: SchemaRegistry; schema?: ObjectType } = {};

/**
 * What the mutations of one request learned about the objects they produced, so that the schema checks of
 * later mutations judge only what changed. The dispatcher keeps one per request (objects pass from one
 * mutation to the next in a single chain, each derived from the one before by copy-on-write edits).
 *
 * The object the API server sent is taken as valid for its own kind: the server decoded it into its Go
 * type before admission, so it has no field that type lacks and no value of the wrong type, and its
 * list-map items carry their keys. Where our schemas disagree (a newer cluster's fields), the server's
 * view wins: such fields neither abort a JSON patch (strict decoding) nor fail an ApplyConfiguration
 * (the live object's conversion); only what the mutations introduced is judged.
 */
export class MutationHistory {
  /** The last object of the chain that decoded strictly, and as which type. */
  decoded: Checked | undefined;
  /** The last object of the chain that applyConfiguration accepted as live object or produced. */
  applied: Checked | undefined;
  /**
   * @param received the object the API server sent, the first of the chain
   * @param receivedKind the kind it was sent as (the request's)
   */
  constructor(
    readonly received: JsonValue | null,
    private readonly receivedKind: GroupVersionKind,
  ) {}

  /** What strict decoding takes as accepted: the last object that decoded as this type, else the received one. */
  acceptedFor(schema: ObjectType): JsonValue | null {
    return this.decoded?.root === schema.root ? this.decoded.doc : this.received;
  }

  /**
   * A version of the object that needs no new live check for this type: the last one applyConfiguration
   * saw, else the received object when the type is the built-in type of its own kind.
   */
  checkedFor(schema: ObjectType): JsonValue | undefined {
    if (this.applied?.root === schema.root) return this.applied.doc;
    const k = this.receivedKind;
    const own = schema.source === 'builtin' && schema.kind === k.kind && schema.group === k.group && schema.version === k.version;
    return own && this.received !== null ? this.received : undefined;
  }
}

interface Checked {
  readonly doc: JsonValue;
  readonly root: TypeRef;
}

/**
 * `history` is the request's (see MutationHistory); without one, `object` is taken as the object the API
 * server sent, as `kind`. `guard` bounds the patch's application (its ReviewAborted is thrown).
 */
export function applyJsonPatchMutation(
  object: JsonValue | null,
  ops: JsonValue,
  kind: GroupVersionKind,
  ctx: SchemaContext,
  history = new MutationHistory(object, kind),
  guard?: ReviewGuard,
): MutationOutcome {
  let schema = schemaFor(kind, ctx);
  // A CONNECT request's options object is of a kind the scheme decodes (strictly) but the OpenAPI lacks.
  if (schema.source === 'deduced') schema = connectOptionsType(kind.group, kind.version, kind.kind) ?? schema;
  // An empty patch changes nothing (the object decoded before; it decodes again).
  if (Array.isArray(ops) && ops.length === 0) return { ok: true, object: object as JsonValue };
  const applied = applyJsonPatch(object, ops, 'kubernetes', guard);
  if (!applied.ok) return patchFailure(applied, object);
  // The API server decodes a JSON-patched built-in object strictly; a failure aborts the request (500).
  // What it sent, and what decoded before, are not judged again: only what the patches introduced.
  if (schema.source === 'builtin') {
    // The kind the patched JSON names comes first (the decoder picks the Go type by it): src/map/type-meta.ts.
    const typed = decodeTypeMeta(applied.doc, kind, ctx.schemas);
    if (!typed.ok) return { ok: false, abort: internalError(typed.message) };
    const err = strictDecode(schema, typed.doc, history.acceptedFor(schema));
    if (err) return { ok: false, abort: internalError(err.message) };
    // The next mutation reads the Go object encoded again (quantities in canonical form).
    const doc = goRoundTrip(schema, typed.doc, object ?? undefined);
    history.decoded = { doc, root: schema.root };
    return { ok: true, object: doc };
  }
  // A custom resource is decoded back into an Unstructured: its apiVersion/kind must read and its kind
  // must be there, or the decoding error aborts the request (500).
  const undecodable = unstructuredTypeMetaError(applied.doc);
  if (undecodable !== undefined) return { ok: false, abort: internalError(undecodable) };
  // The CRD handler's defaulter runs on the result (dispatchOne): the next mutation reads its defaults.
  return { ok: true, object: schema.defaults ? applyCrdDefaults(schema.defaults, applied.doc, object ?? undefined) : applied.doc };
}

/**
 * A JSON patch applied to the object as a map, with no decoding into the kind's type after it: what
 * Kyverno's MutatingPolicy does (it patches unstructured objects and decodes the result back into one, so
 * a field the kind lacks or a value of another type is kept for the API server to judge).
 */
export function applyUnstructuredJsonPatch(object: JsonValue | null, ops: JsonValue, guard?: ReviewGuard): MutationOutcome {
  const applied = applyJsonPatch(object, ops, 'kubernetes', guard);
  if (!applied.ok) return patchFailure(applied, object);
  // Decoding back into an Unstructured needs a kind (and a readable apiVersion): an internal error otherwise.
  const undecodable = unstructuredTypeMetaError(applied.doc);
  return undecodable === undefined ? { ok: true, object: applied.doc } : { ok: false, message: `Internal error occurred: ${undecodable}` };
}

function patchFailure(failure: Extract<ApplyResult, { ok: false }>, object: JsonValue | null): MutationOutcome {
  // A failed `test` discards this mutation's patch; it is not an error.
  if (failure.kind === 'test-failed') return { ok: true, object: object as JsonValue };
  return { ok: false, message: `JSON Patch: ${failure.message}` };
}

/**
 * `history` as for applyJsonPatchMutation. `typed`: convert a built-in kind's result back into its Go
 * type, as kube-apiserver does (schema/from-unstructured.ts); false for Kyverno's MutatingPolicy.
 * `atomics`: `merge` for a Kyverno MutatingPolicy with spec.evaluation.useServerSideApply (ApplyOptions).
 */
export function applyConfigurationMutation(
  object: JsonValue | null,
  config: JsonObject,
  kind: GroupVersionKind,
  ctx: SchemaContext,
  history = new MutationHistory(object, kind),
  typed = true,
  atomics: 'refuse' | 'merge' = 'refuse',
): MutationOutcome {
  const schema = schemaFor(kind, ctx);
  // The live check looks only at what changed since the last checked version of the object.
  const result = applyConfiguration(schema, object as JsonValue, config, { checked: history.checkedFor(schema), atomics });
  if (!result.ok) return { ok: false, message: `error applying patch: ${result.error.message}` };
  // kube-apiserver converts a built-in kind's result back into its Go type (custom resources stay
  // unstructured); Kyverno's MutatingPolicy keeps every object unstructured (`typed` false).
  // Only what this mutation changed is judged: the object it was given converted (the API server's, or a
  // result that decoded or converted before), and the result shares every untouched subtree with it.
  let doc = result.object;
  if (typed && schema.source === 'builtin') {
    const unconvertible = fromUnstructuredError(schema, doc, object ?? undefined);
    if (unconvertible !== undefined) return { ok: false, message: unconvertible };
    // The next mutation reads the Go object encoded again (quantities in canonical form).
    doc = goRoundTrip(schema, doc, object ?? undefined);
  } else if (typed && schema.defaults) {
    // A custom resource's result is defaulted by the CRD's schema (dispatchOne's ObjectDefaulter).
    doc = applyCrdDefaults(schema.defaults, doc, object ?? undefined);
  }
  history.applied = { doc, root: schema.root };
  return { ok: true, object: doc };
}
