/**
 * The apiVersion and kind of a JSON-patched built-in object, as kube-apiserver reads them when it decodes
 * the patched JSON back into the Go type of the matched kind (mutating/patch/json_patch.go: the JSON
 * serializer's Decode into a new object of that kind; k8s.io/apimachinery runtime/serializer/json).
 *
 * - Decode reads `apiVersion`/`kind` (SimpleMetaFactory.Interpret: ParseGroupVersion refuses an apiVersion
 *   with two slashes) and fills what is missing from the target type (gvkWithDefaults). When that names
 *   the target type, the object decodes, and dispatchOne's ConvertToVersion writes the type's
 *   apiVersion/kind back (setTargetKind): a patch removing or emptying them changes nothing there.
 * - Otherwise runtime.UseOrCreateObject asks the scheme for the named kind; one the scheme does not know
 *   is `no kind "K" is registered for version "G/V" in scheme "..."`, answered as an InternalError (500,
 *   whatever the failurePolicy).
 *
 * Not emulated: a named kind the scheme knows (another built-in kind or version) decodes into that type
 * upstream and fails or converts later; Amender leaves such a patch as it is. Amender's schema table
 * holds the served kinds only, so a kind registered but not served (an older version of a kind, an
 * options kind) would be taken as unknown; `apiextensions.k8s.io` and `apiregistration.k8s.io` live in
 * other schemes and are left as they are too.
 */
import type { GroupVersionKind } from '../admission/index.js';
import { goJsonStringify, strconvQuote } from '../go/index.js';
import { goJsonKind, isJsonObject, ownMember, setOwn, shallowCopyObject, withNumberMarksOf, type JsonObject, type JsonValue } from '../json/index.js';
import type { SchemaRegistry } from '../schema/index.js';

/** The name kube-apiserver's release builds give the scheme of the built-in groups (pkg/api/legacyscheme). */
export const LEGACY_SCHEME_NAME = 'k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30';

const OTHER_SCHEMES = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

export type TypeMetaOutcome = { ok: true; doc: JsonValue } | { ok: false; message: string };

function groupVersionText(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * `doc` with the apiVersion/kind the API server's decoding gives it as `target` (the matched kind of a
 * built-in type), or the decoding error. A value that is not a string is left to strict decoding.
 */
export function decodeTypeMeta(doc: JsonValue, target: GroupVersionKind, schemas: SchemaRegistry): TypeMetaOutcome {
  // A patch can make the root a list (`replace` of ""): Interpret cannot read it.
  if (Array.isArray(doc)) return { ok: false, message: `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${FIND_KIND}` };
  if (!isJsonObject(doc)) return { ok: true, doc };
  const read = interpret(doc);
  if (read.error !== undefined) return { ok: false, message: read.error };
  const { apiVersion, kind } = read;
  const canonicalVersion = groupVersionText(target.group, target.version);
  if (apiVersion === canonicalVersion && kind === target.kind) return { ok: true, doc };

  // ParseGroupVersion.
  let group = '';
  let version = '';
  if (apiVersion !== '' && apiVersion !== '/') {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) return { ok: false, message: `unexpected GroupVersion string: ${apiVersion}` };
    if (slashes === 0) version = apiVersion;
    else [group, version] = apiVersion.split('/');
  }
  // gvkWithDefaults, from the target type.
  const actualKind = kind === '' ? target.kind : kind;
  if (version === '' && group === '') {
    group = target.group;
    version = target.version;
  }
  if (version === '' && group === target.group) version = target.version;

  if (group === target.group && version === target.version && actualKind === target.kind) {
    // Decoded as the target type; ConvertToVersion writes its apiVersion and kind back.
    const copy = withNumberMarksOf(doc, shallowCopyObject(doc));
    setOwn(copy, 'apiVersion', canonicalVersion);
    setOwn(copy, 'kind', target.kind);
    return { ok: true, doc: copy };
  }
  // Another kind: not emulated where the scheme may know it (see above).
  if (version === '' || OTHER_SCHEMES.has(target.group) || schemas.lookupGvk({ group, version, kind: actualKind }) !== undefined) return { ok: true, doc };
  return { ok: false, message: `no kind ${strconvQuote(actualKind)} is registered for version ${strconvQuote(groupVersionText(group, version))} in scheme ${strconvQuote(LEGACY_SCHEME_NAME)}` };
}

/** Whether a key is a case variant of `apiVersion` or `kind` (not the key itself), as encoding/json matches keys. */
function isTypeMetaVariant(key: string): boolean {
  if (key.length !== 4 && key.length !== 10) return false;
  if (key === 'kind' || key === 'apiVersion') return false;
  const lower = key.toLowerCase();
  return lower === 'kind' || lower === 'apiversion';
}

const EXACT_KEYS = ['apiVersion', 'kind'];

/**
 * SimpleMetaFactory.Interpret's reading of the patched JSON (evanphx/json-patch writes it from a Go map:
 * keys sorted): encoding/json matches `apiVersion`/`kind` case-insensitively, the last key of a field
 * wins, a null leaves it empty, and the first value of another type is the error Decode returns before
 * anything else (`couldn't get version/kind; json parse error: ...`).
 */
function interpret(doc: JsonObject): { apiVersion: string; kind: string; error?: undefined } | { error: string } {
  let variants = false;
  for (const key in doc) {
    if (isTypeMetaVariant(key)) {
      variants = true;
      break;
    }
  }
  // Without case variants only the two keys themselves count ('apiVersion' sorts before 'kind').
  const keys = variants ? Object.keys(doc).sort() : EXACT_KEYS;
  let apiVersion = '';
  let kind = '';
  for (const key of keys) {
    const lower = key.toLowerCase();
    const field = lower === 'apiversion' ? 'apiVersion' : lower === 'kind' ? 'kind' : undefined;
    const v = field === undefined ? undefined : ownMember(doc, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') {
      return { error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(v)} into Go struct field .${field} of type string` };
    }
    if (field === 'apiVersion') apiVersion = v;
    else kind = v;
  }
  return { apiVersion, kind };
}

/** The Go struct SimpleMetaFactory.Interpret decodes apiVersion and kind into, as encoding/json names it. */
const FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Why a JSON-patched object does not decode back into an Unstructured, as kube-apiserver decodes a custom
 * resource's (mutating/patch/json_patch.go) and Kyverno's MutatingPolicy any object's (mpol compiler
 * json.go): the JSON serializer's Decode into &unstructured.Unstructured{}, Interpret's reading of
 * apiVersion/kind first (see interpret), ParseGroupVersion, then the Unstructured's own `kind`, which must
 * be there. Undefined when it decodes. The caller answers it as an internal error.
 */
export function unstructuredTypeMetaError(doc: JsonValue): string | undefined {
  if (!isJsonObject(doc)) {
    if (doc !== null) return `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(doc)} into Go value of type ${FIND_KIND}`;
  } else {
    const read = interpret(doc);
    if (read.error !== undefined) return read.error;
    const apiVersion = read.apiVersion;
    if (apiVersion !== '/' && apiVersion.split('/').length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
    const kind = ownMember(doc, 'kind');
    if (typeof kind === 'string' && kind !== '') return undefined;
  }
  return `Object 'Kind' is missing in '${goJsonStringify(doc)}'`;
}
