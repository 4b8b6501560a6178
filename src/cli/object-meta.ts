/**
 * What the API server's decoder refuses in a resource's ObjectMeta before any admission webhook sees it
 * (`metadata` is a struct of typed fields: "json: cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.labels of type string"). `amender apply` sends resources as the API server would,
 * so such a resource is refused naming the field instead of reviewed (and printed) as no cluster could
 * store it.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';

const STRING_FIELDS = ['name', 'namespace', 'generateName', 'uid', 'resourceVersion'];
const STRING_MAPS = ['labels', 'annotations'];

function shown(v: JsonValue): string {
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** The first thing the API server's decoder would refuse in `resource`'s metadata, or undefined. */
export function objectMetaProblem(resource: JsonObject): string | undefined {
  const metadata = getOwn(resource, 'metadata');
  if (metadata === undefined || metadata === null) return undefined;
  if (!isJsonObject(metadata)) return `metadata is ${shown(metadata)}, not an object`;
  for (const field of STRING_FIELDS) {
    const v = getOwn(metadata, field);
    if (v !== undefined && v !== null && typeof v !== 'string') return `metadata.${field} is ${shown(v)}, not a string`;
  }
  for (const field of STRING_MAPS) {
    const v = getOwn(metadata, field);
    if (v === undefined || v === null) continue;
    if (!isJsonObject(v)) return `metadata.${field} is ${shown(v)}, not a map of strings`;
    for (const key of Object.keys(v)) {
      const value = getOwn(v, key);
      if (value !== null && typeof value !== 'string') return `metadata.${field}.${key} is ${shown(value as JsonValue)}, not a string (quote it)`;
    }
  }
  return undefined;
}
