/**
 * What the app must answer to a request body, decided independently of src/admission: from the bytes
 * (size, strict UTF-8, JSON, nesting depth, numbers past the double range) and the AdmissionReview shape the README documents
 * ("Requests that are not a usable review…": wrong apiVersion or kind, no request, no uid, an unknown
 * operation, a kind/resource that is not {group, version, kind/resource}, a field of the wrong type, an
 * object that is not an object for CREATE/UPDATE).
 */
export type Obj = Record<string, any>;

export type Expected =
  | { status: 413 | 400; why: string }
  | { status: 200; uid: string; apiVersion: string; object: unknown };

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The deepest nesting of arrays and objects in JSON text, strings skipped: the text's, not the parsed
 * value's (a duplicate key's discarded value counts too: the limit bounds what a parser walks).
 */
function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') {
      max = Math.max(max, ++depth);
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return max;
}

/**
 * Whether a number literal of the text (outside strings) is past the double range: Go's encoding/json
 * refuses one, so the API server never sends one (README, "Numbers"); JSON.parse reads ±Infinity.
 */
function holdsOverflowingNumber(text: string): boolean {
  const literal = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      literal.lastIndex = i;
      const m = literal.exec(text);
      if (!m) continue;
      if (!Number.isFinite(Number(m[0]))) return true;
      i += m[0].length - 1;
    }
  }
  return false;
}

const own = (o: Obj, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

/** Why the request is not a usable AdmissionReview, or undefined when it is. */
function shapeProblem(review: unknown): string | undefined {
  if (!isObject(review)) return 'not an object';
  if (own(review, 'apiVersion') !== 'admission.k8s.io/v1' && own(review, 'apiVersion') !== 'admission.k8s.io/v1beta1') return 'apiVersion';
  if (own(review, 'kind') !== 'AdmissionReview') return 'kind';
  const r = own(review, 'request');
  if (!isObject(r)) return 'request';
  const uid = own(r, 'uid');
  if (typeof uid !== 'string' || uid === '') return 'request.uid';
  const operation = own(r, 'operation');
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(operation as string)) return 'request.operation';
  const gv = (v: unknown, name: string, required: boolean): string | undefined => {
    if (absent(v)) return required ? 'missing' : undefined;
    if (!isObject(v) || typeof own(v, 'group') !== 'string') return 'group';
    if (typeof own(v, 'version') !== 'string' || own(v, 'version') === '') return 'version';
    if (typeof own(v, name) !== 'string' || own(v, name) === '') return name;
    return undefined;
  };
  for (const [field, name, required] of [['kind', 'kind', true], ['resource', 'resource', true], ['requestKind', 'kind', false], ['requestResource', 'resource', false]] as const) {
    const problem = gv(own(r, field), name, required);
    if (problem) return `request.${field}: ${problem}`;
  }
  for (const field of ['subResource', 'requestSubResource', 'name', 'namespace']) {
    if (!absent(own(r, field)) && typeof own(r, field) !== 'string') return `request.${field}`;
  }
  for (const field of ['object', 'oldObject', 'options']) {
    if (!absent(own(r, field)) && !isObject(own(r, field))) return `request.${field}`;
  }
  if (!absent(own(r, 'dryRun')) && typeof own(r, 'dryRun') !== 'boolean') return 'request.dryRun';
  if ((operation === 'CREATE' || operation === 'UPDATE') && !isObject(own(r, 'object'))) return 'request.object for CREATE/UPDATE';
  const user = own(r, 'userInfo');
  if (absent(user)) return undefined;
  if (!isObject(user)) return 'request.userInfo';
  for (const field of ['username', 'uid']) if (!absent(own(user, field)) && typeof own(user, field) !== 'string') return `request.userInfo.${field}`;
  const strings = (v: unknown) => absent(v) || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  if (!strings(own(user, 'groups'))) return 'request.userInfo.groups';
  const extra = own(user, 'extra');
  if (absent(extra)) return undefined;
  if (!isObject(extra)) return 'request.userInfo.extra';
  for (const key of Object.keys(extra)) if (!strings(extra[key])) return 'request.userInfo.extra values';
  return undefined;
}

/**
 * The class of answer `body` must get from POST /mutate (Content-Type application/json) under these
 * limits, with the request's uid and its object (as JSON.parse reads it) for a valid review.
 */
export function expectedAnswer(body: Uint8Array, limits: { maxBodyBytes: number; maxJsonDepth: number }): Expected {
  if (body.byteLength > limits.maxBodyBytes) return { status: 413, why: 'over the body limit' };
  let text: string;
  try {
    text = STRICT_UTF8.decode(body); // drops one leading BOM, as a webhook reading UTF-8 JSON may
  } catch {
    return { status: 400, why: 'not UTF-8' };
  }
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch {
    return { status: 400, why: 'not JSON' };
  }
  if (depthOf(text) > limits.maxJsonDepth) return { status: 400, why: 'too deep' };
  if (holdsOverflowingNumber(text)) return { status: 400, why: 'a number past the double range' };
  const problem = shapeProblem(review);
  if (problem) return { status: 400, why: problem };
  const object = (review as Obj).request.object;
  return { status: 200, uid: (review as Obj).request.uid, apiVersion: (review as Obj).apiVersion, object };
}
