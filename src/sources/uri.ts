/**
 * Policy source URIs as configured (`AMENDER_POLICY_SOURCES`, a cluster's `sources`):
 *
 *   bundled                 the policies compiled into the bundle at build time
 *   file:///etc/amender     a folder (or one file); a plain path means the same
 *   s3://bucket/prefix      every .yaml/.yml/.json below the prefix (folder semantics)
 *   r2://BINDING/prefix     the same through a Workers R2 bucket binding
 */
export type SourceUri =
  | { kind: 'bundled'; uri: string }
  | { kind: 'directory'; uri: string; path: string }
  | { kind: 's3'; uri: string; bucket: string; prefix: string }
  | { kind: 'r2'; uri: string; binding: string; prefix: string };

export class SourceUriError extends Error {
  override name = 'SourceUriError';
}

// S3 bucket names: 3-63 of lowercase letters, digits, dots and hyphens (a compatible store may allow
// more; underscores and uppercase are refused by S3 itself and by most others).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// A Workers binding name is a JavaScript identifier.
const BINDING = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function splitBucketUri(uri: string, scheme: string): { head: string; prefix: string } {
  const rest = uri.slice(scheme.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? { head: rest, prefix: '' } : { head: rest.slice(0, slash), prefix: rest.slice(slash + 1) };
}

/** Parses one source URI; throws SourceUriError with what is wrong and what is accepted. */
export function parseSourceUri(raw: string): SourceUri {
  const uri = raw.trim();
  if (uri === 'bundled') return { kind: 'bundled', uri };
  if (uri.startsWith('s3://')) {
    const { head, prefix } = splitBucketUri(uri, 's3://');
    if (!BUCKET.test(head)) throw new SourceUriError(`policy source ${uri}: "${head}" is not a valid S3 bucket name`);
    return { kind: 's3', uri, bucket: head, prefix };
  }
  if (uri.startsWith('r2://')) {
    const { head, prefix } = splitBucketUri(uri, 'r2://');
    if (!BINDING.test(head)) throw new SourceUriError(`policy source ${uri}: "${head}" is not a Workers binding name`);
    return { kind: 'r2', uri, binding: head, prefix };
  }
  if (uri.startsWith('file://')) {
    const path = uri.slice('file://'.length);
    if (path === '') throw new SourceUriError(`policy source ${uri}: no path after file://`);
    return { kind: 'directory', uri, path };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) {
    throw new SourceUriError(`policy source ${uri}: unknown scheme (use bundled, file://DIR, s3://bucket/prefix or r2://BINDING/prefix)`);
  }
  if (uri === '') throw new SourceUriError('policy source: empty');
  return { kind: 'directory', uri, path: uri };
}
