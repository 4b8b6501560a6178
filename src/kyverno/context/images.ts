/**
 * The `images` context (pkg/utils/image/infos.go): for every container of a Pod, a pod controller's
 * template or a CronJob's job template, `images.<containers|initContainers|ephemeralContainers>.<name>`
 * = `{registry, path, name, tag, digest, reference, referenceWithTag, jsonPointer}`, the empty ones of
 * registry, tag and digest left out. Images without a registry get `docker.io`; images without tag or
 * digest get `latest`.
 */
import { goTrimSpace } from '../../go/index.js';
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { imageInfo, imageReferenceWithTag, imageString, type ImageInfo } from '../go/image.js';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/**
 * Where each kind's pod spec is (Kyverno's extractors are registered for these kinds only,
 * pkg/utils/api/image.go; other kinds, whatever their spec holds, have no images).
 */
const POD_SPEC_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['Pod', ['spec']],
  ...['DaemonSet', 'Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet', 'Job'].map((k): [string, string[]] => [k, ['spec', 'template', 'spec']]),
  ['CronJob', ['spec', 'jobTemplate', 'spec', 'template', 'spec']],
]);

/** An error of Kyverno's extract (pkg/utils/api/image.go), which fails the `images` loader. */
class ExtractError extends Error {}

/**
 * The containers of one list, as Kyverno's extract walks to them: a missing or null field on the way
 * means none; anything else that is not a map where one is expected is `invalid image config`. The list
 * (`*`) may be a list or a map (its values, keyed as the pointer says); any other value is
 * `invalid type`. Undefined: no containers.
 */
function containersOf(resource: JsonObject, path: readonly string[], list: string): [string, JsonValue][] | undefined {
  let current: JsonValue | undefined = resource;
  for (const field of [...path, list]) {
    if (current === null || current === undefined) return undefined;
    if (!isJsonObject(current)) throw new ExtractError('invalid image config');
    current = getOwn(current, field);
  }
  if (current === null || current === undefined) return undefined;
  if (Array.isArray(current)) return current.map((c, i) => [String(i), c]);
  const map = current;
  if (isJsonObject(map)) return Object.keys(map).map((k) => [k, getOwn(map, k)!]);
  throw new ExtractError('invalid type');
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
  const kind = isJsonObject(resource) ? getOwn(resource, 'kind') : undefined;
  const path = typeof kind === 'string' ? POD_SPEC_PATHS.get(kind) : undefined;
  if (!path || !isJsonObject(resource)) return { images: undefined };
  const out: JsonObject = {};
  for (const list of CONTAINER_LISTS) {
    const entries: JsonObject = {};
    let containers: [string, JsonValue][] | undefined;
    try {
      containers = containersOf(resource, path, list);
    } catch (e) {
      return { images: undefined, error: (e as Error).message };
    }
    for (const [at, c] of containers ?? []) {
      // Kyverno (extract in pkg/utils/api/image.go): a null item is no container, any other item that
      // is not a map an invalid image config, a container name that is not a string an invalid key;
      // then a missing, non-string or blank image is skipped.
      if (c === null) continue;
      if (!isJsonObject(c)) return { images: undefined, error: 'invalid image config' };
      const name = getOwn(c, 'name');
      if (typeof name !== 'string') return { images: undefined, error: 'invalid key' };
      const image = getOwn(c, 'image');
      // strings.TrimSpace: Go's spaces (U+0085 is one, U+FEFF is not).
      if (typeof image !== 'string' || goTrimSpace(image) === '') continue;
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
      entry.jsonPointer = `/${[...path, list, at].join('/')}/image`;
      setOwn(entries, name, entry);
    }
    if (Object.keys(entries).length > 0) out[list] = entries;
  }
  return { images: Object.keys(out).length > 0 ? out : undefined };
}
