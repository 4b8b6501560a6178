import type { JsonObject, JsonValue } from '../json/index.js';

/** admission.k8s.io/v1 shapes, as the API server sends and expects them. */

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: UserInfo;
  /** The incoming object; null/absent for DELETE and some CONNECT requests. */
  object?: JsonValue;
  /** The existing object; null/absent for CREATE. */
  oldObject?: JsonValue;
  dryRun?: boolean;
  options?: JsonValue;
}

export interface StatusCause {
  message: string;
  reason?: string;
  field?: string;
}

/** metav1.Status as carried in a denial. */
export interface Status {
  code: number;
  reason?: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
  status?: 'Failure';
  metadata?: JsonObject;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Always "JSONPatch" when `patch` is set. */
  patchType?: 'JSONPatch';
  /** Base64 of the RFC 6902 patch (JSON array). */
  patch?: string;
  status?: Status;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/**
 * The AdmissionReview versions answered: v1, and v1beta1 (the same shape; the API server sends it to a
 * webhook whose admissionReviewVersions lists it first, and Kubernetes before 1.16 knew no other).
 */
export type AdmissionApiVersion = 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';

export interface AdmissionReview<T extends 'request' | 'response' = 'request' | 'response'> {
  /** A reply has the version of the review it answers. */
  apiVersion: AdmissionApiVersion;
  kind: 'AdmissionReview';
  request?: T extends 'request' ? AdmissionRequest : undefined;
  response?: T extends 'response' ? AdmissionResponse : undefined;
}
