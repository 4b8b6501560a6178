/**
 * Applying the value a mutation expression produced to the current object (spec/map.md §8.3, §9.4):
 * JSON patches with kube-apiserver's applier (evanphx v4: a failed `test` leaves the object unchanged,
 * `replace` of a missing member adds it, negative indices), apply configurations as server-side apply
 * against the kind's schema. Never changes its inputs.
 */
import type { GroupVersionKind } from '../admission/types.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import { applyPatch, decodePatch } from '../jsonpatch/index.js';
import { applyConfiguration, strictDecode, type SchemaRegistry } from '../schema/index.js';
import { internalError, serviceUnavailable, StatusAbort } from './errors.js';
import type { MutationOutcome } from './dispatch.js';

export interface SchemaContext {
  schemas: SchemaRegistry;
  /**
   * Refuse kinds without a schema with the 503 kube-apiserver gives (spec/map.md §9.4). Default false:
   * a webhook cannot know every CRD of a cluster, so unknown kinds merge with SMD's deduced schema.
   */
  requireSchema?: boolean;
}

function schemaFor(kind: GroupVersionKind, ctx: SchemaContext) {
  const known = ctx.schemas.lookupGvk(kind);
  if (known) return known;
  if (ctx.requireSchema) {
    const gvk = `${kind.group ? `${kind.group}/` : ''}${kind.version}, Kind=${kind.kind}`;
    return serviceUnavailable(`Resource kind ${gvk} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.`);
  }
  return ctx.schemas.deduced(kind);
}

export function applyJsonPatchMutation(object: JsonValue | null, ops: JsonValue, kind: GroupVersionKind, ctx: SchemaContext): MutationOutcome {
  const schema = schemaFor(kind, ctx);
  if (schema instanceof StatusAbort) return { ok: false, abort: schema };
  // An empty patch changes nothing (the object decoded before; it decodes again).
  if (Array.isArray(ops) && ops.length === 0) return { ok: true, object: object as JsonValue };
  const decoded = decodePatch(ops, 'kubernetes');
  if (!decoded.ok) return { ok: false, message: `JSON Patch: ${decoded.message}` };
  const applied = applyPatch(object, decoded.patch, 'kubernetes');
  if (!applied.ok) {
    // A failed `test` discards this mutation's patch; it is not an error.
    if (applied.kind === 'test-failed') return { ok: true, object: object as JsonValue };
    return { ok: false, message: `JSON Patch: ${applied.message}` };
  }
  // The API server decodes a JSON-patched built-in object strictly; a failure aborts the request (500).
  if (schema.source === 'builtin') {
    const err = strictDecode(schema, applied.doc);
    if (err) return { ok: false, abort: internalError(err.message) };
  }
  return { ok: true, object: applied.doc };
}

export function applyConfigurationMutation(object: JsonValue | null, config: JsonObject, kind: GroupVersionKind, ctx: SchemaContext): MutationOutcome {
  const schema = schemaFor(kind, ctx);
  if (schema instanceof StatusAbort) return { ok: false, abort: schema };
  const result = applyConfiguration(schema, object as JsonValue, config);
  if (!result.ok) return { ok: false, message: `error applying patch: ${result.error.message}` };
  return { ok: true, object: result.object };
}
