/**
 * A param object of a built-in kind as kube-apiserver stores it and its typed informer hands it to CEL
 * (generic/policy_source.go takes the kind's typed informer; the object reaches CEL converted to
 * unstructured with encoding/json's rules). The create path decodes the document into the kind's Go type,
 * defaults it and converts it for storage, so what a policy reads is not the document as written:
 * - the Go round trip (schema/go-round-trip.ts): an empty `omitempty` map or string is gone (`data: {}`,
 *   `labels: {}`), quantities are canonical (`1000m` reads `1`), base64 is canonical;
 * - a Secret's `stringData` is merged into `data` (as UTF-8 bytes, base64), overriding a key `data` has,
 *   and never read back (k8s.io/api core/v1 types.go, Secret.StringData: "merged into the data field on
 *   write ... never output when reading from the API"); an empty `type` is defaulted to Opaque
 *   (SetDefaults_Secret, kubernetes pkg/apis/core/v1/defaults.go).
 * - a Namespace is labelled with its name, its phase Active and its spec holds the `kubernetes`
 *   finalizer (storedNamespace).
 * Other kinds' Go defaulting functions are not reproduced (no data for them here).
 * Runs once per param at set build, never per review.
 */
import { base64 } from '../go/index.js';
import { getOwn, isJsonObject, setOwn, shallowCopyObject, type JsonObject } from '../json/index.js';
import { validateConfigMap, validateObjectMeta, validateSecret, type ObjectFieldError } from '../k8s/index.js';
import { builtinScope } from '../map/index.js';
import { goRoundTrip, parseApiVersion, strictDecode, type SchemaRegistry } from '../schema/index.js';

/**
 * Why kube-apiserver would refuse to create `obj` (a document of a built-in kind), so that no such object
 * can exist for a param informer (or a namespaceSelector) to read; empty when it would store it. The
 * create handler decodes the body strictly into the Go type (kubectl's default field validation,
 * Strict), answering '<Kind> in version "<v>" cannot be handled as a <Kind>: <decode error>'
 * (apiserver endpoints/handlers/create.go, transformDecodeError); then the kind's validation runs:
 * ConfigMap's and Secret's own checks are reproduced (k8s/config-validation.ts), and every kind's metadata
 * checks (k8s/object-meta-validation.ts; names only of a few kinds); other kinds' own validation is not.
 */
export function storedBuiltinProblems(obj: JsonObject, schemas: SchemaRegistry): ObjectFieldError[] {
  const apiVersion = getOwn(obj, 'apiVersion');
  const kind = getOwn(obj, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return [];
  const type = schemas.lookup(apiVersion, kind);
  if (type === undefined || type.source !== 'builtin') return [];
  const decodeError = strictDecode(type, obj);
  if (decodeError) {
    const { version } = parseApiVersion(apiVersion);
    return [{ path: '', message: `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${decodeError.message}` }];
  }
  const meta = getOwn(obj, 'metadata');
  const core = type.group === '';
  const metaErrors = isJsonObject(meta) ? validateObjectMeta(core ? kind : undefined, meta, builtinScope(type.group, kind) === 'Namespaced') : [];
  if (!core || (kind !== 'ConfigMap' && kind !== 'Secret')) return metaErrors;
  const stored = storedBuiltin(obj, schemas);
  // The store asks for the same view next: made once.
  storedViews.set(obj, stored);
  return [...metaErrors, ...(kind === 'ConfigMap' ? validateConfigMap(stored) : validateSecret(stored))];
}

/** Stored views made by storedBuiltinProblems, which the store asks for next (keys: the documents). */
const storedViews = new WeakMap<JsonObject, JsonObject>();

/** `obj` (a document of a built-in kind, with apiVersion/kind) as stored; `obj` itself when the kind has no schema. */
export function storedBuiltin(obj: JsonObject, schemas: SchemaRegistry): JsonObject {
  const made = storedViews.get(obj);
  if (made !== undefined) return made;
  const apiVersion = getOwn(obj, 'apiVersion');
  const kind = getOwn(obj, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return obj;
  const type = schemas.lookup(apiVersion, kind);
  if (type === undefined || type.source !== 'builtin') return obj;
  const decoded = goRoundTrip(type, obj, undefined);
  if (type.group !== '') return decoded;
  return kind === 'Secret' ? storedSecret(decoded) : kind === 'Namespace' ? storedNamespace(decoded) : decoded;
}

/** The label every stored Namespace has, its name (core/v1 LabelMetadataName). */
const NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * A v1 Namespace (after the Go round trip) as created: labelled with its name (SetDefaults_Namespace,
 * which the namespace strategy's Canonicalize enforces on every write), its status phase Active when unset
 * (SetDefaults_NamespaceStatus), and the `kubernetes` finalizer in its spec (the strategy's
 * PrepareForCreate appends it). So a namespaceSelector on kubernetes.io/metadata.name matches it, as it
 * matches the cluster's.
 */
function storedNamespace(ns: JsonObject): JsonObject {
  const meta = getOwn(ns, 'metadata');
  const name = isJsonObject(meta) ? getOwn(meta, 'name') : undefined;
  const out = shallowCopyObject(ns) as JsonObject;
  if (typeof name === 'string' && name !== '' && isJsonObject(meta)) {
    const labels = getOwn(meta, 'labels');
    const m = shallowCopyObject(meta) as JsonObject;
    setOwn(m, 'labels', { ...(isJsonObject(labels) ? labels : {}), [NAME_LABEL]: name });
    setOwn(out, 'metadata', m);
  }
  const status = getOwn(ns, 'status');
  if (!isJsonObject(status) || typeof getOwn(status, 'phase') !== 'string' || getOwn(status, 'phase') === '') {
    setOwn(out, 'status', { ...(isJsonObject(status) ? status : {}), phase: 'Active' });
  }
  const spec = getOwn(ns, 'spec');
  const finalizers = isJsonObject(spec) ? getOwn(spec, 'finalizers') : undefined;
  const list = Array.isArray(finalizers) ? finalizers : [];
  if (!list.includes('kubernetes')) setOwn(out, 'spec', { ...(isJsonObject(spec) ? spec : {}), finalizers: [...list, 'kubernetes'] });
  return out;
}

const utf8 = new TextEncoder();

/** A v1 Secret (after the Go round trip) with stringData folded into data and its type defaulted. */
function storedSecret(secret: JsonObject): JsonObject {
  const stringData = getOwn(secret, 'stringData');
  const type = getOwn(secret, 'type');
  if (stringData === undefined && typeof type === 'string' && type !== '') return secret;
  const out = shallowCopyObject(secret) as JsonObject;
  if (isJsonObject(stringData)) {
    const before = getOwn(secret, 'data');
    const data = isJsonObject(before) ? (shallowCopyObject(before) as JsonObject) : {};
    for (const key of Object.keys(stringData)) {
      const value = stringData[key];
      // A value of another type cannot be decoded into map[string]string: such a Secret is never stored.
      if (typeof value === 'string') setOwn(data, key, base64(utf8.encode(value)));
    }
    // An empty map is left out (omitempty), as when neither map held a key.
    if (Object.keys(data).length > 0) setOwn(out, 'data', data);
  }
  delete out.stringData;
  if (typeof type !== 'string' || type === '') setOwn(out, 'type', 'Opaque');
  return out;
}
