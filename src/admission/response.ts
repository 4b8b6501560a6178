import { setOwn, type JsonObject } from '../json/index.js';
import type { Operation } from '../jsonpatch/index.js';
import { base64Utf8 } from './base64.js';
import { patchText } from './patch-text.js';
import type { AdmissionResponse, AdmissionReview, Status } from './types.js';
import { ADMISSION_API_VERSION, ADMISSION_KIND } from './validate.js';

export type ReviewReply = AdmissionReview<'response'> & { response: AdmissionResponse };

/** What a reply may carry besides the decision: shown to the user (warnings) or kept in the audit log. */
export interface ReplyExtras {
  warnings?: readonly string[];
  auditAnnotations?: Readonly<Record<string, string>>;
}

function wrap(response: AdmissionResponse, extras: ReplyExtras): ReviewReply {
  if (extras.warnings && extras.warnings.length > 0) response.warnings = [...extras.warnings];
  if (extras.auditAnnotations && Object.keys(extras.auditAnnotations).length > 0) {
    const annotations: JsonObject = {};
    for (const [k, v] of Object.entries(extras.auditAnnotations)) setOwn(annotations, k, v);
    response.auditAnnotations = annotations as Record<string, string>;
  }
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_KIND, response };
}

/**
 * The reply for an admitted request: `patchType` and the base64 patch only when the patch changes
 * something (the API server treats an empty patch as a change of nothing, but saying nothing is clearer).
 */
export function allowReply(uid: string, patch: readonly Operation[] = [], extras: ReplyExtras = {}): ReviewReply {
  const response: AdmissionResponse = { uid, allowed: true };
  if (patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = base64Utf8(patchText(patch));
  }
  return wrap(response, extras);
}

/**
 * The reply for a denied request (spec/map.md §10): `allowed: false` and the status as given, with
 * `status: "Failure"` set as metav1.Status has it. Nothing of a denied request's mutations is returned.
 */
export function denyReply(uid: string, status: Status, extras: ReplyExtras = {}): ReviewReply {
  const response: AdmissionResponse = { uid, allowed: false, status: { status: 'Failure', ...status } };
  return wrap(response, extras);
}
