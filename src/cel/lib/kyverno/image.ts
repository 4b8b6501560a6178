import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversal } from '../cost.js';
import { celError } from '../errors.js';
import { parseURL } from '../go-url.js';

/**
 * Kyverno's image library (kyverno/sdk `extensions/cel/libs/image`): image references parsed as
 * go-containerregistry's `name.ParseReference` reads them (not distribution/reference): the first path
 * part is the registry when it is `localhost` or has a `.` or `:`; the registry
 * defaults to `index.docker.io` (`docker.io` is rewritten to it), a one-part Docker Hub repository gets
 * `library/`, the tag defaults to `latest`, and a reference with a digest is a digest reference (no tag).
 *
 *   image(string), parseImageReference(string) -> kyverno.image, isImage(string) -> bool
 *   <image>.registry(), .repository(), .identifier(), .tag(), .digest() -> string, .containsDigest() -> bool
 */

export const IMAGE_TYPE = 'kyverno.image';
const DEFAULT_REGISTRY = 'index.docker.io';
const TAG_CHARS = /^[A-Za-z0-9_.-]+$/;
const REPOSITORY_CHARS = /^[a-z0-9_./-]+$/;
/**
 * go-containerregistry's checkRegistry: Go's url.Parse("//" + name) must succeed and keep the whole name as
 * its host (so no `%`, `@`, `?`, `#`, space; `<`, `>`, `"`, `[`, `]` and non-ASCII letters are kept).
 */
function validRegistry(name: string): boolean {
  try {
    return parseURL(`//${name}`).host === name;
  } catch {
    return false;
  }
}

class ReferenceError extends Error {}

export class ImageReference {
  readonly celTypeName = IMAGE_TYPE;
  /** type() fails: kyverno/sdk's Image.ConvertToType converts to kyverno.image only, not to `type`. */
  readonly celTypeOfFails = true;
  constructor(
    readonly registry: string,
    /** As given, without the implicit `library/`. */
    private readonly repo: string,
    readonly tag: string,
    readonly digest: string,
    readonly original: string,
  ) {}

  get repository(): string {
    return !this.repo.includes('/') && this.registry === DEFAULT_REGISTRY ? `library/${this.repo}` : this.repo;
  }

  get identifier(): string {
    return this.digest !== '' ? this.digest : this.tag;
  }

  /** The reference as written (go-containerregistry's String() of a parsed reference). */
  toString(): string {
    return this.original;
  }

  /**
   * kyverno/sdk image types.go Image.Equal: reflect.DeepEqual of the references, and for a value that is
   * no image MaybeNoSuchOverloadErr (undefined here): `dyn(image("a")) == "a"` is an error, not false.
   */
  celEquals(other: unknown): boolean | undefined {
    if (!(other instanceof ImageReference)) return undefined;
    return (
      other.registry === this.registry &&
      other.repo === this.repo &&
      other.tag === this.tag &&
      other.digest === this.digest &&
      other.original === this.original
    );
  }
}

function repository(name: string): { registry: string; repo: string } {
  if (name === '') throw new ReferenceError('a repository name must be specified');
  let registry = '';
  let repo = name;
  const slash = name.indexOf('/');
  if (slash >= 0) {
    const first = name.slice(0, slash);
    if (first === 'localhost' || first.includes('.') || first.includes(':')) {
      registry = first;
      repo = name.slice(slash + 1);
    }
  }
  // At least 2 characters: go-containerregistry v0.21.9, the version Kyverno's go.mod pins (checkRepository;
  // one character is allowed only since its commit 4cb35833, in no tag up to v0.21.9).
  const runes = Array.from(repo).length;
  if (runes < 2 || runes > 255) throw new ReferenceError(`repository must be between 2 and 255 characters in length: ${repo}`);
  if (!REPOSITORY_CHARS.test(repo)) throw new ReferenceError(`repository can only contain the characters \`abcdefghijklmnopqrstuvwxyz0123456789_-./\`: ${repo}`);
  if (!validRegistry(registry)) throw new ReferenceError(`registries must be valid RFC 3986 URI authorities: ${registry}`);
  if (registry === '' || registry === 'docker.io') registry = DEFAULT_REGISTRY;
  return { registry, repo };
}

function tagReference(name: string): ImageReference {
  let base = name;
  let tag = '';
  const parts = name.split(':');
  if (parts.length > 1 && !parts[parts.length - 1].includes('/')) {
    base = parts.slice(0, -1).join(':');
    tag = parts[parts.length - 1];
    if (tag === '') throw new ReferenceError(`${name} must specify a tag name after the colon`);
  }
  if (tag !== '' && (tag.length > 128 || !TAG_CHARS.test(tag))) throw new ReferenceError(`tag can only contain the characters \`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.\`: ${tag}`);
  const { registry, repo } = repository(base);
  return new ImageReference(registry, repo, tag === '' ? 'latest' : tag, '', name);
}

function digestReference(name: string): ImageReference {
  const parts = name.split('@');
  if (parts.length !== 2) throw new ReferenceError(`a digest must contain exactly one '@' separator (e.g. registry/repository@digest) saw: ${name}`);
  const [base0, digest] = parts;
  if (!digest.startsWith('sha256:')) throw new ReferenceError(`unsupported digest algorithm: ${digest}`);
  if (!/^[a-f0-9]{64}$/.test(digest.slice(7))) throw new ReferenceError('invalid checksum digest format');
  let base = base0;
  try {
    // A tag in front of the digest is dropped: the base is the tag reference's full repository name.
    const t = tagReference(base0);
    base = `${t.registry}/${t.repository}`;
  } catch {
    // Not a tag reference: the base is read as a repository below.
  }
  const { registry, repo } = repository(base);
  return new ImageReference(registry, repo, '', digest, name);
}

/** go-containerregistry's ParseReference: a tag reference, else a digest reference. */
export function parseImageReference(s: string): ImageReference {
  try {
    return tagReference(s);
  } catch {
    try {
      return digestReference(s);
    } catch {
      throw new ReferenceError(`could not parse reference: ${s}`);
    }
  }
}

function toImage(s: string): ImageReference {
  try {
    return parseImageReference(s);
  } catch (e) {
    if (e instanceof ReferenceError) throw celError(e.message);
    throw e;
  }
}

function isImage(s: string): boolean {
  try {
    parseImageReference(s);
    return true;
  } catch (e) {
    if (e instanceof ReferenceError) return false;
    throw e;
  }
}

export const imageLibrary: CelLibrary = {
  name: 'kyverno.image',
  register(r: LibraryRegistrar) {
    const I = IMAGE_TYPE;
    r.registerType(I, ImageReference);
    r.registerFunction(`image(string): ${I}`, toImage);
    r.registerFunction(`parseImageReference(string): ${I}`, toImage);
    r.registerFunction('isImage(string): bool', isImage);
    r.registerFunction(`${I}.containsDigest(): bool`, (i: ImageReference) => i.digest !== '');
    r.registerFunction(`${I}.registry(): string`, (i: ImageReference) => i.registry);
    r.registerFunction(`${I}.repository(): string`, (i: ImageReference) => i.repository);
    r.registerFunction(`${I}.identifier(): string`, (i: ImageReference) => i.identifier);
    r.registerFunction(`${I}.tag(): string`, (i: ImageReference) => i.tag);
    r.registerFunction(`${I}.digest(): string`, (i: ImageReference) => i.digest);
  },
  callCost(fn, args) {
    // Parsing walks the string once: charged like Kubernetes' url()/ip() parsers.
    if (fn === 'image' || fn === 'parseImageReference' || fn === 'isImage') return traversal(args[0]);
    return undefined;
  },
};
