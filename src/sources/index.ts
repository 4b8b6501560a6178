/**
 * Policy sources: where a policy set's documents come from, and keeping the set up to date.
 * Core (no `node:*`): this file. Node-only sources (folders, S3) are in `./node/index.ts`.
 *
 *   parseSourceUri(uri) → SourceUri                          bundled | file://DIR | s3://b/p | r2://BINDING/p
 *   resolveSources(uris, resolvers, platform?) → PolicySource[]   (throws SourceUriError listing every problem)
 *   new PolicySetRefresher({ name, sources, logger?, intervalMs?, debounceMs?, settleMs?, limits?, trustListedVersions? })
 *     .refresh() → Promise<RefreshResult>     read, rebuild when changed, swap atomically; keep the last good set;
 *                                             each source read as one generation (see snapshot.ts); a refused
 *                                             document keeps its last good version (stats().refusedDocuments);
 *                                             once started, a file written in place takes effect once it reads
 *                                             the same settleMs apart (a write caught halfway never does)
 *     .refreshIfDue()                         the same when the interval has passed (Lambda, Workers)
 *     .start() / .stop()                      timer and watches (Node)
 *     .provider: PolicySetProvider            for createApp({ policies }) / a cluster
 *     .stats() → RefreshStats
 *   registerSourceMetrics(registry, () => refreshers)
 *   bundlePolicies(files) → BundleResult      build time: validate policies/, refuse any problem
 *   bundledSource(bundle), r2Source({ uri, bucket, prefix }), workerSourceResolvers(env, bundle?)
 */
export type { FetchOptions, FetchResult, ListOptions, LoadLimits, PolicySource, SourceEntry } from './types.js';
export { DEFAULT_LOAD_LIMITS, SnapshotMoved, SourceError } from './types.js';
export { parseSourceUri, SourceUriError, type SourceUri } from './uri.js';
export { resolveSources, type SourceResolvers } from './resolve.js';
export { isPolicyDocumentName, isSkippedFolder, folderPrefix } from './names.js';
export { decodeDocumentBytes, NotUtf8Error } from './text.js';
export {
  DEFAULT_DEBOUNCE_MS,
  DEFAULT_REFRESH_INTERVAL_MS,
  DEFAULT_SETTLE_MS,
  PolicySetRefresher,
  type RefreshOutcome,
  type RefreshResult,
  type RefreshStats,
  type RefresherOptions,
} from './refresher.js';
export { registerSourceMetrics } from './metrics.js';
export { BUNDLE_FORMAT, bundlePolicies, formatBundleProblems, stringifyJson, type BundleResult, type BundledFile, type PolicyBundle } from './bundle.js';
export { bundledSource } from './bundled.js';
export { r2Source, type R2BucketLike, type R2ObjectLike, type R2SourceOptions } from './r2.js';
export { workerSourceResolvers } from './workers.js';
