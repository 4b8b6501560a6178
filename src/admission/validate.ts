import { isJsonObject, ownMember, setOwn, type JsonObject, type JsonValue } from '../json/index.js';
import type {
  AdmissionApiVersion,
  AdmissionRequest,
  AdmissionReview,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
  UserInfo,
} from './types.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
/** admission.k8s.io/v1beta1: read as v1 (same fields) and answered in v1beta1, as a webhook must. */
export const ADMISSION_API_VERSION_V1BETA1 = 'admission.k8s.io/v1beta1';
export const ADMISSION_KIND = 'AdmissionReview';
const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** An AdmissionReview that cannot be answered; `message` names the field and what was wrong. */
export class ReviewValidationError extends Error {
  override name = 'ReviewValidationError';
  /** The request uid when it could be read, so a caller may still echo it. */
  constructor(message: string, readonly uid?: string) {
    super(message);
  }
}

export type ReviewValidation =
  | { ok: true; review: AdmissionReview<'request'>; request: AdmissionRequest; apiVersion: AdmissionApiVersion }
  | { ok: false; error: ReviewValidationError };

/**
 * Checks a parsed body against the admission.k8s.io/v1 AdmissionReview request shape and returns it
 * typed, or the first problem with a field path. The request's documents are kept as they are (no copy):
 * the engine never mutates its input.
 */
export function validateReview(value: JsonValue): ReviewValidation {
  try {
    const request = readReview(value);
    const review = value as unknown as AdmissionReview<'request'>;
    return { ok: true, review, request, apiVersion: review.apiVersion };
  } catch (err) {
    if (err instanceof ReviewValidationError) return { ok: false, error: err };
    throw err;
  }
}

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value)}`;
  // A literal past the double range (`1e400`) parses as ±Infinity, which JSON.stringify would write `null`.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number out of range';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

/**
 * A key of the review (userInfo.extra's) in a field path: as it is when short and plain, else quoted and
 * cut, so a message stays short whatever the key (a 1 MiB key) and a quote, backslash, bracket or control
 * character in it cannot make the path read otherwise. A dot stays as it is (`userInfo.extra.a.b`).
 */
function shownKey(key: string): string {
  if (key.length > 0 && key.length <= 60 && !/[\u0000-\u001f\u007f"\\[\]]/.test(key)) return key;
  return JSON.stringify(key.length > 60 ? key.slice(0, 60) + '…' : key);
}

function fail(path: string, expected: string, got: JsonValue | undefined, uid?: string): never {
  throw new ReviewValidationError(`${path}: expected ${expected}, got ${describe(got)}`, uid);
}

// The review is parsed JSON: its members are read by ownMember (a plain read, the own-property test only
// where the read could be inherited), not by getOwn's own-property test per field.
function readReview(value: JsonValue): AdmissionRequest {
  if (!isJsonObject(value)) fail('AdmissionReview', 'a JSON object', value);
  const apiVersion = ownMember(value, 'apiVersion');
  if (apiVersion !== ADMISSION_API_VERSION && apiVersion !== ADMISSION_API_VERSION_V1BETA1) {
    fail('apiVersion', `"${ADMISSION_API_VERSION}" or "${ADMISSION_API_VERSION_V1BETA1}"`, apiVersion);
  }
  const kind = ownMember(value, 'kind');
  if (kind !== ADMISSION_KIND) fail('kind', `"${ADMISSION_KIND}"`, kind);
  const request = ownMember(value, 'request');
  if (!isJsonObject(request)) fail('request', 'an object', request);
  return readRequest(request);
}

function readRequest(req: JsonObject): AdmissionRequest {
  const uid = ownMember(req, 'uid');
  if (typeof uid !== 'string' || uid === '') fail('request.uid', 'a non-empty string', uid);
  const at = new FieldReader(req, 'request', uid);
  const operation = ownMember(req, 'operation');
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation as Operation)) {
    fail('request.operation', `one of ${OPERATIONS.join(', ')}`, operation, uid);
  }
  const result: AdmissionRequest = {
    uid,
    kind: at.gvk('kind', true)!,
    resource: at.gvr('resource', true)!,
    operation: operation as Operation,
    userInfo: at.userInfo(),
  };
  // The optional members, each set only when present (in this order, as they always were).
  const subResource = at.string('subResource');
  if (subResource !== undefined) result.subResource = subResource;
  const requestKind = at.gvk('requestKind', false);
  if (requestKind !== undefined) result.requestKind = requestKind;
  const requestResource = at.gvr('requestResource', false);
  if (requestResource !== undefined) result.requestResource = requestResource;
  const requestSubResource = at.string('requestSubResource');
  if (requestSubResource !== undefined) result.requestSubResource = requestSubResource;
  const name = at.string('name');
  if (name !== undefined) result.name = name;
  const namespace = at.string('namespace');
  if (namespace !== undefined) result.namespace = namespace;
  const object = at.document('object');
  if (object !== undefined) result.object = object;
  const oldObject = at.document('oldObject');
  if (oldObject !== undefined) result.oldObject = oldObject;
  const dryRun = at.boolean('dryRun');
  if (dryRun !== undefined) result.dryRun = dryRun;
  const options = at.document('options');
  if (options !== undefined) result.options = options;
  if ((operation === 'CREATE' || operation === 'UPDATE') && !isJsonObject(result.object)) {
    fail('request.object', `an object for a ${operation} request`, result.object, uid);
  }
  return result;
}

/** Reads the typed fields of one object, failing with the full field path. */
class FieldReader {
  constructor(private readonly obj: JsonObject, private readonly path: string, private readonly uid: string) {}

  private fail(key: string, expected: string, got: JsonValue | undefined): never {
    fail(`${this.path}.${key}`, expected, got, this.uid);
  }

  string(key: string): string | undefined {
    const v = ownMember(this.obj, key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.fail(key, 'a string', v);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = ownMember(this.obj, key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.fail(key, 'a boolean', v);
    return v;
  }

  /** An embedded document (object, oldObject, options): an object, or null/absent. */
  document(key: string): JsonObject | null | undefined {
    const v = ownMember(this.obj, key);
    if (v === undefined || v === null) return v;
    if (!isJsonObject(v)) this.fail(key, 'an object or null', v);
    return v;
  }

  private group(key: string, required: boolean): FieldReader | undefined {
    const v = ownMember(this.obj, key);
    if (v === undefined || v === null) {
      if (required) this.fail(key, 'an object', v);
      return undefined;
    }
    if (!isJsonObject(v)) this.fail(key, 'an object', v);
    return new FieldReader(v, `${this.path}.${key}`, this.uid);
  }

  /** A string field that must be present; `allowEmpty` for API groups (the core group is ""). */
  required(key: string, allowEmpty: boolean): string {
    const v = ownMember(this.obj, key);
    if (typeof v !== 'string' || (!allowEmpty && v === '')) this.fail(key, allowEmpty ? 'a string' : 'a non-empty string', v);
    return v;
  }

  gvk(key: string, required: boolean): GroupVersionKind | undefined {
    const r = this.group(key, required);
    return r && { group: r.required('group', true), version: r.required('version', false), kind: r.required('kind', false) };
  }

  gvr(key: string, required: boolean): GroupVersionResource | undefined {
    const r = this.group(key, required);
    return r && { group: r.required('group', true), version: r.required('version', false), resource: r.required('resource', false) };
  }

  /** userInfo is always sent by the API server; a hand-written review may leave it out (empty user). */
  userInfo(): UserInfo {
    const r = this.group('userInfo', false);
    if (!r) return {};
    const info: UserInfo = {};
    const username = r.string('username');
    if (username !== undefined) info.username = username;
    const uid = r.string('uid');
    if (uid !== undefined) info.uid = uid;
    const groups = r.stringList('groups');
    if (groups !== undefined) info.groups = groups;
    const extra = r.group('extra', false);
    if (extra) {
      const out: JsonObject = {};
      for (const name of Object.keys(extra.obj)) {
        const values = extra.stringList(name, shownKey(name));
        if (values !== undefined) setOwn(out, name, values);
      }
      info.extra = out as Record<string, string[]>;
    }
    return info;
  }

  /** `shown`: the key as a message names it (see shownKey). */
  stringList(key: string, shown = key): string[] | undefined {
    const v = ownMember(this.obj, key);
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.fail(shown, 'a list of strings', v);
    v.forEach((item, i) => {
      if (typeof item !== 'string') this.fail(`${shown}[${i}]`, 'a string', item);
    });
    return v as string[];
  }
}
