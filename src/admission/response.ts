import { setOwn, type JsonObject } from '../json/index.js';
import type { Operation } from '../jsonpatch/index.js';
import { base64Utf8 } from './base64.js';
import { patchText } from './patch-text.js';
import type { AdmissionApiVersion, AdmissionResponse, AdmissionReview, Status } from './types.js';
import { ADMISSION_API_VERSION, ADMISSION_KIND } from './validate.js';

export type ReviewReply = AdmissionReview<'response'> & { response: AdmissionResponse };

/** What a reply may carry besides the decision: shown to the user (warnings) or kept in the audit log. */
export interface ReplyExtras {
  warnings?: readonly string[];
  auditAnnotations?: Readonly<Record<string, string>>;
  /** The version of the review answered (default admission.k8s.io/v1): the reply has the same. */
  apiVersion?: AdmissionApiVersion;
}

/** The extras of an evaluation's reply to a review of `apiVersion` (named only when it is not v1). */
export function replyExtras(result: { warnings?: readonly string[]; auditAnnotations?: Readonly<Record<string, string>> }, apiVersion: AdmissionApiVersion): ReplyExtras {
  const extras: ReplyExtras = { warnings: result.warnings, auditAnnotations: result.auditAnnotations };
  if (apiVersion !== ADMISSION_API_VERSION) extras.apiVersion = apiVersion;
  return extras;
}

function wrap(response: AdmissionResponse, extras: ReplyExtras): ReviewReply {
  if (extras.warnings && extras.warnings.length > 0) response.warnings = [...extras.warnings];
  if (extras.auditAnnotations && Object.keys(extras.auditAnnotations).length > 0) {
    const annotations: JsonObject = {};
    for (const [k, v] of Object.entries(extras.auditAnnotations)) setOwn(annotations, k, v);
    response.auditAnnotations = annotations as Record<string, string>;
  }
  return { apiVersion: extras.apiVersion ?? ADMISSION_API_VERSION, kind: ADMISSION_KIND, response };
}

/**
 * The base64 patch each admitted response was given by allowReply: replyText writes a patch it finds here
 * (the same string, still in place) without scanning it for characters to escape, as base64 has none.
 */
const BASE64_PATCHES = new WeakMap<AdmissionResponse, string>();

/**
 * The reply for an admitted request: `patchType` and the base64 patch only when the patch changes
 * something (the API server treats an empty patch as a change of nothing, but saying nothing is clearer).
 */
export function allowReply(uid: string, patch: readonly Operation[] = [], extras: ReplyExtras = {}): ReviewReply {
  const response: AdmissionResponse = { uid, allowed: true };
  if (patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = base64Utf8(patchText(patch));
    BASE64_PATCHES.set(response, response.patch);
  }
  return wrap(response, extras);
}

const REPLY_NAMES = ['apiVersion', 'kind', 'response'];
const ADMITTED_RESPONSE_NAMES = ['uid', 'allowed', 'patchType', 'patch'];

/** The member names in that order (JSON.stringify writes members in the order they were added). */
function sameNames(names: string[], expected: readonly string[]): boolean {
  if (names.length !== expected.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== expected[i]) return false;
  return true;
}

const ADMITTED_PREFIX = `{"apiVersion":${JSON.stringify(ADMISSION_API_VERSION)},"kind":${JSON.stringify(ADMISSION_KIND)},"response":{"uid":`;

/**
 * The reply as JSON text, exactly as `JSON.stringify(reply)` writes it. The common reply, admitted with a
 * patch of allowReply's and nothing else, is written directly: JSON.stringify scans the base64 patch (about
 * a kilobyte) for characters to escape, which cost more than the rest of the request's handling.
 */
export function replyText(reply: ReviewReply): string {
  const response = reply.response;
  const patch = BASE64_PATCHES.get(response);
  if (
    patch !== undefined &&
    patch === response.patch &&
    response.allowed === true &&
    response.patchType === 'JSONPatch' &&
    typeof response.uid === 'string' &&
    reply.apiVersion === ADMISSION_API_VERSION &&
    reply.kind === ADMISSION_KIND &&
    sameNames(Object.keys(response), ADMITTED_RESPONSE_NAMES) &&
    sameNames(Object.keys(reply), REPLY_NAMES)
  ) {
    return `${ADMITTED_PREFIX}${JSON.stringify(response.uid)},"allowed":true,"patchType":"JSONPatch","patch":"${patch}"}}`;
  }
  return JSON.stringify(reply);
}

/**
 * The reply for a denied request (spec/map.md §10): `allowed: false` and the status as given, with
 * `status: "Failure"` set as metav1.Status has it. Nothing of a denied request's mutations is returned.
 */
export function denyReply(uid: string, status: Status, extras: ReplyExtras = {}): ReviewReply {
  const response: AdmissionResponse = { uid, allowed: false, status: { status: 'Failure', ...status } };
  return wrap(response, extras);
}
