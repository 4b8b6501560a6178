/**
 * Image references as Kyverno reads them (pkg/utils/image/infos.go GetImageInfo on
 * distribution/reference, with its error messages): the default registry is added when the first path
 * component is not a host, the tag defaults to `latest` unless there is a digest. Used by the `images`
 * context and by `image_normalize`.
 */

export interface ImageInfo {
  registry: string;
  path: string;
  name: string;
  tag: string;
  digest: string;
}

export class ImageError extends Error {}

const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[(?:[a-fA-F0-9:]+)\\])`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const tagPat = '[\\w][\\w.-]{0,127}';
const digestPat = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^((?:${domainAndPort}/)?${remoteName})(?::(${tagPat}))?(?:@(${digestPat}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${domainAndPort})/)?(${remoteName})$`);

const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

function validateDigest(d: string): void {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) throw new ImageError('invalid checksum digest format');
  const alg = d.slice(0, i);
  const enc = d.slice(i + 1);
  const len = Object.hasOwn(DIGEST_LENGTHS, alg) ? DIGEST_LENGTHS[alg] : undefined;
  if (len === undefined) {
    if (!/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(d)) throw new ImageError('invalid checksum digest format');
    throw new ImageError('unsupported digest algorithm');
  }
  if (enc.length !== len) throw new ImageError('invalid checksum digest length');
  if (!/^[a-f0-9]+$/.test(enc)) throw new ImageError('invalid checksum digest format');
}

/** distribution/reference.Parse. */
export function parseReference(s: string): { domain: string; path: string; tag: string; digest: string } {
  const m = REFERENCE.exec(s);
  if (!m) {
    if (s === '') throw new ImageError('repository name must have at least one component');
    if (REFERENCE.test(s.toLowerCase())) throw new ImageError('repository name must be lowercase');
    throw new ImageError('invalid reference format');
  }
  if (m[1].length > 255) throw new ImageError('repository name must not be more than 255 characters');
  const n = ANCHORED_NAME.exec(m[1]);
  const domain = n?.[1] ?? '';
  const path = n ? n[2] : m[1];
  const digest = m[3] ?? '';
  if (digest) validateDigest(digest);
  return { domain, path, tag: m[2] ?? '', digest };
}

export function addDefaultRegistry(name: string, defaultRegistry: string): string {
  const i = name.indexOf('/');
  if (i === -1 || (!/[.:]/.test(name.slice(0, i)) && name.slice(0, i) !== 'localhost' && name.slice(0, i).toLowerCase() === name.slice(0, i))) {
    return `${defaultRegistry}/${name}`;
  }
  return name;
}

export interface ImageConfig {
  defaultRegistry: string;
  enableDefaultRegistryMutation: boolean;
}

export const DEFAULT_IMAGE_CONFIG: ImageConfig = { defaultRegistry: 'docker.io', enableDefaultRegistryMutation: true };

export function imageInfo(image: string, cfg: ImageConfig = DEFAULT_IMAGE_CONFIG): ImageInfo {
  const full = addDefaultRegistry(image, cfg.defaultRegistry);
  let ref;
  try {
    ref = parseReference(full);
  } catch (e) {
    throw new ImageError(
      `bad image: ${full}, defaultRegistry: ${cfg.defaultRegistry}, enableDefaultRegistryMutation: ${cfg.enableDefaultRegistryMutation}: ${(e as Error).message}`,
    );
  }
  let registry = ref.domain;
  const name = ref.path.slice(ref.path.lastIndexOf('/') + 1);
  const tag = ref.digest === '' && ref.tag === '' ? 'latest' : ref.tag;
  if (full !== image && !cfg.enableDefaultRegistryMutation) registry = '';
  return { registry, path: ref.path, name, tag, digest: ref.digest };
}

const repository = (i: ImageInfo) => (i.registry !== '' ? `${i.registry}/${i.path}` : i.path);

/** ImageInfo.String(): the reference with its digest when it has one, else with its tag. */
export function imageString(i: ImageInfo): string {
  return i.digest !== '' ? `${repository(i)}@${i.digest}` : `${repository(i)}:${i.tag}`;
}

/** ImageInfo.ReferenceWithTag(). */
export function imageReferenceWithTag(i: ImageInfo): string {
  return `${repository(i)}:${i.tag}`;
}
