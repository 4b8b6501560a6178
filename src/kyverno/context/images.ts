/**
 * The `images` context (pkg/utils/image/infos.go): for every container of a Pod, a pod controller's
 * template or a CronJob's job template, `images.<containers|initContainers|ephemeralContainers>.<name>`
 * = `{registry, path, name, tag, digest, reference, referenceWithTag, jsonPointer}`, the empty ones of
 * registry, tag and digest left out. Images without a registry get `docker.io`; images without tag or
 * digest get `latest`.
 */
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { imageInfo, imageReferenceWithTag, imageString, type ImageInfo } from '../go/image.js';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
const POD_CONTROLLERS = new Set(['DaemonSet', 'Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet', 'Job']);

/** The pod spec of a Pod, a pod controller (`spec.template.spec`) or a CronJob, with its JSON pointer. */
function podSpec(resource: JsonObject): [JsonObject, string] | undefined {
  const kind = getOwn(resource, 'kind');
  const spec = getOwn(resource, 'spec');
  if (!isJsonObject(spec)) return undefined;
  if (kind === 'Pod') return [spec, '/spec'];
  if (kind === 'CronJob') {
    const jobSpec = dig(spec, ['jobTemplate', 'spec', 'template', 'spec']);
    return jobSpec ? [jobSpec, '/spec/jobTemplate/spec/template/spec'] : undefined;
  }
  // Kyverno's extractors are registered for these kinds only (pkg/utils/api/image.go); other kinds,
  // whatever their spec holds, have no images.
  if (typeof kind !== 'string' || !POD_CONTROLLERS.has(kind)) return undefined;
  const template = dig(spec, ['template', 'spec']);
  return template ? [template, '/spec/template/spec'] : undefined;
}

function dig(value: JsonObject, path: string[]): JsonObject | undefined {
  let current: JsonValue | undefined = value;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = getOwn(current, key);
  }
  return isJsonObject(current) ? current : undefined;
}

/**
 * The `images` context entry for a resource, or Kyverno's error when a container's image is not a
 * reference or its name is not a string: Kyverno's loader then fails, and every query that reads
 * `images` fails with it (`error`). A resource without images has no entry at all (`images` undefined):
 * Kyverno adds none when it found no image (addImageInfos in pkg/engine/context/context.go), so `images`
 * is an unknown key there, not an empty map.
 */
export type ImagesEntry = { readonly images: JsonObject | undefined; readonly error?: undefined } | { readonly images: undefined; readonly error: string };

export function imagesOf(resource: JsonValue): ImagesEntry {
  const found = isJsonObject(resource) ? podSpec(resource) : undefined;
  if (!found) return { images: undefined };
  const [spec, pointer] = found;
  const out: JsonObject = {};
  for (const list of CONTAINER_LISTS) {
    const containers = getOwn(spec, list);
    if (!Array.isArray(containers)) continue;
    const entries: JsonObject = {};
    for (let i = 0; i < containers.length; i++) {
      const c = containers[i];
      // Kyverno (extract in pkg/utils/api/image.go): an item that is not a map is an invalid image
      // config, a container name that is not a string an invalid key; then a missing, non-string or
      // blank image is skipped.
      if (!isJsonObject(c)) return { images: undefined, error: 'invalid image config' };
      const name = getOwn(c, 'name');
      if (typeof name !== 'string') return { images: undefined, error: 'invalid key' };
      const image = getOwn(c, 'image');
      if (typeof image !== 'string' || image.trim() === '') continue;
      let info: ImageInfo;
      try {
        info = imageInfo(image);
      } catch (e) {
        return { images: undefined, error: `invalid image '${image}' (${(e as Error).message})` };
      }
      // Kyverno converts its ImageInfo struct to a map by its JSON tags: registry, tag and digest are
      // `omitempty`, so an image without a digest has no `digest` key (and one with only a digest no
      // `tag`); reading it is an unknown key, as for any other missing field.
      const entry: JsonObject = {};
      if (info.registry !== '') entry.registry = info.registry;
      entry.path = info.path;
      entry.name = info.name;
      if (info.tag !== '') entry.tag = info.tag;
      if (info.digest !== '') entry.digest = info.digest;
      entry.reference = imageString(info);
      entry.referenceWithTag = imageReferenceWithTag(info);
      entry.jsonPointer = `${pointer}/${list}/${i}/image`;
      setOwn(entries, name, entry);
    }
    if (Object.keys(entries).length > 0) out[list] = entries;
  }
  return { images: Object.keys(out).length > 0 ? out : undefined };
}
