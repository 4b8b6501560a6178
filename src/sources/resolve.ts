/**
 * Turns configured source URIs into sources with the constructors a platform has: Node has directories
 * and S3, Workers have R2 bindings; every platform may have the bundled set. A scheme the platform cannot
 * serve is a configuration error, found at start rather than at the first refresh.
 */
import { folderPrefix } from './names.js';
import type { PolicySource } from './types.js';
import { parseSourceUri, SourceUriError, type SourceUri } from './uri.js';

export interface SourceResolvers {
  bundled?: (uri: Extract<SourceUri, { kind: 'bundled' }>) => PolicySource;
  directory?: (uri: Extract<SourceUri, { kind: 'directory' }>) => PolicySource;
  s3?: (uri: Extract<SourceUri, { kind: 's3' }>) => PolicySource;
  r2?: (uri: Extract<SourceUri, { kind: 'r2' }>) => PolicySource;
}

const KIND_NAMES: Record<SourceUri['kind'], string> = { bundled: 'bundled', directory: 'file://', s3: 's3://', r2: 'r2://' };

/**
 * The place a URI names, one key however it is spelled (`a.yaml` and `./a.yaml`, `policies` and
 * `policies/`, `file://x` and `x`): a place named twice would be read twice, and every one of its
 * documents reported a duplicate of itself. An S3 or R2 prefix is keyed on what its source lists: the
 * prefix as a folder (`one`, `one/` and `/one` all list `one/`; S3 itself would take `one` as a prefix of
 * `one-two/` too, which Amender never reads), so `s3://b/one`, `s3://b/one/` and `s3://b//one` are one place.
 */
function placeOf(uri: SourceUri): string {
  if (uri.kind === 'directory') return `directory:${uri.path.replace(/^(\.\/)+/, '').replace(/(.)\/+$/, '$1')}`;
  if (uri.kind === 's3') return `s3:${uri.bucket}/${folderPrefix(uri.prefix)}`;
  if (uri.kind === 'r2') return `r2:${uri.binding}/${folderPrefix(uri.prefix)}`;
  return `${uri.kind}:${uri.uri}`;
}

/**
 * Every URI's source (a place named again is read once), or a SourceUriError naming every URI that
 * cannot be served here.
 */
export function resolveSources(uris: readonly string[], resolvers: SourceResolvers, platform = 'this platform'): PolicySource[] {
  const problems: string[] = [];
  const sources: PolicySource[] = [];
  const places = new Set<string>();
  if (uris.length === 0) problems.push('no policy source configured');
  for (const raw of uris) {
    let parsed: SourceUri;
    try {
      parsed = parseSourceUri(raw);
    } catch (err) {
      problems.push((err as Error).message);
      continue;
    }
    const place = placeOf(parsed);
    if (places.has(place)) continue;
    places.add(place);
    const make = resolvers[parsed.kind] as ((u: SourceUri) => PolicySource) | undefined;
    if (!make) {
      const available = (Object.keys(KIND_NAMES) as SourceUri['kind'][]).filter((k) => resolvers[k]).map((k) => KIND_NAMES[k]);
      problems.push(`policy source ${parsed.uri}: ${KIND_NAMES[parsed.kind]} sources are not available on ${platform} (available: ${available.join(', ') || 'none'})`);
      continue;
    }
    try {
      sources.push(make(parsed));
    } catch (err) {
      problems.push(`policy source ${parsed.uri}: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new SourceUriError(problems.join('; '));
  return sources;
}
