/**
 * The create-time checks of an object's metadata that every kind shares (apimachinery
 * pkg/api/validation/objectmeta.go validateObjectMetaAccessorWithOptsCommon: the namespace's name,
 * ValidateLabels, ValidateAnnotations), and the name rules of the kinds Amender reads as objects most
 * (ConfigMap and Secret: a DNS-1123 subdomain; Namespace: a DNS-1123 label). A document that fails them
 * can never be stored. Errors in the API server's words, in key order (Go walks maps in random order).
 */
import { strconvQuote } from '../go/index.js';
import type { ObjectFieldError } from './config-validation.js';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain } from './names.js';
import { mapField, utf8Total, type Obj } from './object-fields.js';

/** apimachinery TotalAnnotationSizeLimitB. */
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

const NAME_RULES: Readonly<Record<string, (name: string, prefix: boolean) => string[]>> = {
  ConfigMap: nameIsDNSSubdomain,
  Secret: nameIsDNSSubdomain,
  Namespace: nameIsDNSLabel,
};

function stringMap(meta: Obj, name: string): [string, string][] {
  return Object.entries(mapField(meta, name)).filter((e): e is [string, string] => typeof e[1] === 'string');
}

const invalid = (path: string, value: string, msg: string): ObjectFieldError => ({ path, message: `Invalid value: ${strconvQuote(value)}: ${msg}` });

/**
 * The metadata errors of an object whose metadata is `meta`; `coreKind`: its kind when of the core group
 * (whose name rules are known for a few kinds); `namespaced`: the kind is (its namespace, when set, must
 * be a DNS-1123 label; one left empty is placed by the caller).
 */
export function validateObjectMeta(coreKind: string | undefined, meta: Obj, namespaced: boolean): ObjectFieldError[] {
  const out: ObjectFieldError[] = [];
  const nameRule = coreKind !== undefined && Object.hasOwn(NAME_RULES, coreKind) ? NAME_RULES[coreKind] : undefined;
  const name = meta.name;
  if (nameRule && typeof name === 'string' && name !== '') for (const msg of nameRule(name, false)) out.push(invalid('metadata.name', name, msg));
  const namespace = meta.namespace;
  if (namespaced && typeof namespace === 'string' && namespace !== '') {
    for (const msg of nameIsDNSLabel(namespace, false)) out.push(invalid('metadata.namespace', namespace, msg));
  }
  for (const [k, v] of stringMap(meta, 'labels')) {
    for (const msg of isQualifiedName(k)) out.push(invalid('metadata.labels', k, msg));
    for (const msg of isValidLabelValue(v)) out.push(invalid('metadata.labels', v, msg));
  }
  const annotations = stringMap(meta, 'annotations');
  for (const [k] of annotations) {
    // Annotation keys are qualified names with case ignored.
    for (const msg of isQualifiedName(k.toLowerCase())) out.push(invalid('metadata.annotations', k, msg));
  }
  if (utf8Total(annotations.flat(), ANNOTATIONS_SIZE_LIMIT) > ANNOTATIONS_SIZE_LIMIT) out.push({ path: 'metadata.annotations', message: `Too long: may not be more than ${ANNOTATIONS_SIZE_LIMIT} bytes` });
  return out;
}
