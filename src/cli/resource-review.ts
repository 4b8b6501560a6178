/**
 * `apply` and `test` start from a resource, not a review: build the AdmissionReview the API server would
 * send for it, answer it exactly as the HTTP endpoint does, and apply the reply's patch with a strict
 * RFC 6902 applier — so what the CLI shows is what a cluster would store.
 */
import { decodeBase64Utf8, type Operation as AdmissionOperation, type Status } from '../admission/index.js';
import { getOwn, isJsonObject, parseJson, type JsonObject, type JsonValue } from '../json/index.js';
import { applyPatch, decodePatch } from '../jsonpatch/index.js';
import type { PolicySet } from '../policyset/index.js';
import type { PolicyOutcome } from '../engine/index.js';
import { parseApiVersion } from '../schema/index.js';
import { answerReview } from '../server/index.js';
import { CliInputError } from './errors.js';
import { crdResource, guessResource } from './resource-names.js';

export const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface ResourceRequest {
  object: JsonObject;
  oldObject?: JsonObject;
  operation: AdmissionOperation;
  /** Overrides `metadata.namespace` of the object. */
  namespace?: string;
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  /** Every policy-set document, to find the plural of a CRD kind. */
  documents: readonly JsonObject[];
}

/** `warnings`: the reply's admission warnings (Kyverno `spec.emitWarning`), as kubectl would print them. */
export type ResourceOutcome = (
  | { allowed: true; object: JsonValue; patch: JsonValue[] }
  | { allowed: false; status: Status }
) & {
  /** What each policy did (the engine's outcomes). */
  outcomes: readonly PolicyOutcome[];
  warnings: readonly string[];
};

export function reviewForResource(req: ResourceRequest): JsonObject {
  const subject = req.operation === 'DELETE' ? (req.oldObject ?? req.object) : req.object;
  const apiVersion = getOwn(subject, 'apiVersion');
  const kind = getOwn(subject, 'kind');
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new CliInputError('the resource needs apiVersion and kind');
  }
  const { group, version } = parseApiVersion(apiVersion);
  const resource = crdResource(req.documents, group, kind) ?? guessResource(kind);
  const metadata = getOwn(subject, 'metadata');
  const meta = isJsonObject(metadata) ? metadata : {};
  const namespace = req.namespace ?? (typeof meta.namespace === 'string' ? meta.namespace : undefined);
  const name = typeof meta.name === 'string' ? meta.name : undefined;
  const userInfo: JsonObject = {};
  if (req.username !== undefined) userInfo.username = req.username;
  if (req.uid !== undefined) userInfo.uid = req.uid;
  if (req.groups !== undefined) userInfo.groups = req.groups;
  if (req.extra !== undefined) userInfo.extra = req.extra;
  const request: JsonObject = {
    uid: 'amender-cli',
    kind: { group, version, kind },
    resource: { group, version, resource },
    requestKind: { group, version, kind },
    requestResource: { group, version, resource },
    operation: req.operation,
    userInfo,
    object: req.operation === 'DELETE' ? null : req.object,
    oldObject: req.operation === 'DELETE' ? (req.oldObject ?? req.object) : (req.oldObject ?? null),
    dryRun: false,
  };
  if (name !== undefined) request.name = name;
  if (namespace !== undefined) request.namespace = namespace;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/**
 * `review` as the API server sends it for a Namespace: in that namespace (its create handler and request
 * info set `namespace = name` for the namespaces resource). The Kyverno CLI, which reviewForResource
 * also serves, leaves it empty.
 */
function inOwnNamespace(review: JsonObject): JsonObject {
  const request = review.request as JsonObject;
  const resource = request.resource as JsonObject;
  if (resource.group !== '' || resource.resource !== 'namespaces' || request.namespace !== undefined || typeof request.name !== 'string') return review;
  return { ...review, request: { ...request, namespace: request.name } };
}

/** Runs the resource through the policy set; the mutated object is the reply's patch applied strictly. */
export async function runResource(set: PolicySet, req: ResourceRequest): Promise<ResourceOutcome> {
  const review = inOwnNamespace(reviewForResource(req));
  const answer = await answerReview(review, set);
  if (answer.status !== 200) throw new CliInputError(answer.body.message);
  const response = answer.body.response;
  const outcomes = answer.outcomes ?? [];
  const warnings = response.warnings ?? [];
  if (!response.allowed) return { allowed: false, status: response.status ?? { code: 403, message: 'denied without a status' }, outcomes, warnings };
  const original = (review.request as JsonObject).object ?? null;
  if (!response.patch) return { allowed: true, object: original, patch: [], outcomes, warnings };
  const patch = parseJson(decodeBase64Utf8(response.patch)) as JsonValue[];
  const decoded = decodePatch(patch);
  if (!decoded.ok) throw new Error(`the reply's patch does not decode: ${decoded.message}`);
  const applied = applyPatch(original, decoded.patch, 'rfc6902');
  if (!applied.ok) throw new Error(`the reply's patch does not apply under RFC 6902: ${applied.message}`);
  return { allowed: true, object: applied.doc, patch, outcomes, warnings };
}
