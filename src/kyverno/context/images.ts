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

/** Kyverno's image info with Kyverno's defaults, or undefined when the image is not a reference. */
function infoOf(image: string): ImageInfo | undefined {
  try {
    return imageInfo(image);
  } catch {
    return undefined;
  }
}

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

/** The `images` context entry for a resource; an empty object when it has no containers. */
export function imagesOf(resource: JsonValue): JsonObject {
  const out: JsonObject = {};
  if (!isJsonObject(resource)) return out;
  const found = podSpec(resource);
  if (!found) return out;
  const [spec, pointer] = found;
  for (const list of CONTAINER_LISTS) {
    const containers = getOwn(spec, list);
    if (!Array.isArray(containers)) continue;
    const entries: JsonObject = {};
    containers.forEach((c, i) => {
      if (!isJsonObject(c)) return;
      const name = getOwn(c, 'name');
      const image = getOwn(c, 'image');
      if (typeof name !== 'string' || typeof image !== 'string') return;
      const info = infoOf(image);
      if (!info) return;
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
    });
    if (Object.keys(entries).length > 0) out[list] = entries;
  }
  return out;
}
