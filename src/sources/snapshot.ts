/**
 * Reads one source against what was read last time: a document whose listed version is unchanged is not
 * fetched at all; one whose version is unknown or different is fetched conditionally (If-None-Match), so
 * a store that still has the version held answers "not modified" without a body. Only changed text is
 * parsed again. A document that no longer reads (half written, corrupt) keeps its last good version in
 * force, with the problem reported; on first sight it is reported and the other documents load. (The
 * refresher applies the same rule to a new version that reads but that the set refuses.)
 *
 * What is read is one generation of the source: every document is read at the version its listing showed
 * (an object replaced or deleted between the listing and its fetch, a ConfigMap swapped mid-read, is a
 * SnapshotMoved); after the reads, the source's `confirm` runs, and unless it vouched for the whole
 * listing (a ConfigMap snapshot), when anything new was read a second listing must show the same versions
 * (a first listing may have straddled an update). A source that moved is read once more; when it moves again the refresh fails and the last
 * good set stays in force.
 */
import { utf8Length } from '../json/index.js';
import { parseDocuments, type ParsedSource, type Problem } from '../policyset/index.js';
import { mapBounded, untilAborted, withOwnSignal } from './bounds.js';
import { byName } from './names.js';
import { documentTooLarge, SnapshotMoved, SourceError, type LoadLimits, type PolicySource, type SourceEntry } from './types.js';

export interface CachedDocument {
  label: string;
  version: string;
  /** UTF-8 size of the text (0 for documents that came parsed). */
  bytes: number;
  /** What the current version reads as. */
  fresh: ParsedSource;
  /** What goes into the set: `fresh`, or the last good version with `fresh`'s problems. */
  parsed: ParsedSource;
  /** The newest version that the set accepted whole, kept in force while a newer one is refused. */
  lastGood?: ParsedSource;
}

/** Document name → what was read of it. */
export type SourceCache = ReadonlyMap<string, CachedDocument>;

export interface ReadCounts {
  /** Documents whose body was transferred. */
  fetched: number;
  /** Conditional fetches answered "not modified". */
  notModified: number;
  /** Documents not requested at all: the listing showed the version held. */
  skipped: number;
}

export interface ReadOptions {
  signal: AbortSignal;
  limits: LoadLimits;
  /** Skip the fetch when the listing shows the version held (default). False: always ask conditionally. */
  trustListedVersions: boolean;
}

export const KEPT_NOTE = '(the last good version of this document stays in force)';

/** `lastGood`'s documents, with the problems of the version that replaces it. */
export function keepLastGood(problems: readonly Problem[], lastGood: ParsedSource): ParsedSource {
  return {
    source: lastGood.source,
    documents: lastGood.documents,
    problems: problems.map((p) => ({ ...p, message: `${p.message} ${KEPT_NOTE}` })),
  };
}

async function readEntry(
  source: PolicySource,
  entry: SourceEntry,
  prior: CachedDocument | undefined,
  options: ReadOptions,
  counts: ReadCounts,
): Promise<CachedDocument | undefined> {
  if (entry.size !== undefined && entry.size > options.limits.maxDocumentBytes) {
    throw documentTooLarge(source.uri, entry.label, entry.size, options.limits.maxDocumentBytes);
  }
  if (prior && options.trustListedVersions && entry.version !== undefined && entry.version === prior.version) {
    counts.skipped++;
    return prior;
  }
  const result = await untilAborted(
    source.fetch(entry, { signal: options.signal, maxBytes: options.limits.maxDocumentBytes, ...(prior ? { ifNoneMatch: prior.version } : {}) }),
    options.signal,
  );
  const listed = entry.version;
  if (listed !== undefined) {
    const found = result.status === 'gone' ? 'it is gone' : result.status === 'not-modified' ? `it still has ${prior?.version}` : `it has ${result.version}`;
    const held = result.status === 'gone' ? undefined : result.status === 'not-modified' ? prior?.version : result.version;
    if (held !== listed) throw new SnapshotMoved(source.uri, `${entry.label} changed between the listing and its read (listed at ${listed}, ${found})`);
  }
  switch (result.status) {
    case 'gone':
      return undefined;
    case 'not-modified':
      if (!prior) throw new SourceError(source.uri, `${entry.label}: the store answered "not modified" to an unconditional request`);
      counts.notModified++;
      return prior;
    case 'parsed':
      counts.fetched++;
      return { label: entry.label, version: result.version, bytes: 0, fresh: result.parsed, parsed: result.parsed, ...(prior?.lastGood ? { lastGood: prior.lastGood } : {}) };
    case 'fetched': {
      counts.fetched++;
      const bytes = utf8Length(result.text);
      if (bytes > options.limits.maxDocumentBytes) {
        throw documentTooLarge(source.uri, entry.label, bytes, options.limits.maxDocumentBytes);
      }
      const fresh = parseDocuments(entry.label, result.text);
      const lastGood = prior?.lastGood;
      const parsed = fresh.problems.length > 0 && lastGood ? keepLastGood(fresh.problems, lastGood) : fresh;
      return { label: entry.label, version: result.version, bytes, fresh, parsed, ...(lastGood ? { lastGood } : {}) };
    }
  }
}

/**
 * Lists and reads one source as one generation; throws SourceError (or the store's error) when it cannot
 * be read whole, SnapshotMoved when it changed under two reads in a row.
 */
export function readSource(source: PolicySource, previous: SourceCache, options: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  return withOwnSignal(options.signal, (signal) => readStableGeneration(source, previous, { ...options, signal }, counts));
}

async function readStableGeneration(source: PolicySource, previous: SourceCache, options: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  try {
    return await readGeneration(source, previous, options, counts);
  } catch (err) {
    if (!(err instanceof SnapshotMoved) || options.signal.aborted) throw err;
    try {
      return await readGeneration(source, previous, options, counts);
    } catch (again) {
      if (again instanceof SnapshotMoved) throw new SnapshotMoved(source.uri, `kept changing while being read, twice in a row: ${again.message.slice(source.uri.length + 2)}`);
      throw again;
    }
  }
}

async function list(source: PolicySource, options: ReadOptions): Promise<SourceEntry[]> {
  const listed = await untilAborted(source.list({ signal: options.signal, maxEntries: options.limits.maxDocuments }), options.signal);
  if (listed.length > options.limits.maxDocuments) {
    throw new SourceError(source.uri, `lists ${listed.length} documents, over the limit of ${options.limits.maxDocuments}`);
  }
  return [...listed].sort(byName);
}

/**
 * A listing is not one atomic read (S3 and R2 page it; a folder is walked file by file): one that
 * straddled an update shows some documents at the old version (skipped, as held) and others at the new.
 * When a refresh read anything new, the source is listed again and must show the same versions.
 */
async function confirmListing(source: PolicySource, first: readonly SourceEntry[], options: ReadOptions): Promise<void> {
  const again = await list(source, options);
  const moved =
    again.find((e, i) => e.name !== first[i]?.name || e.version !== first[i]?.version)?.label ??
    (again.length !== first.length ? first[again.length]?.label : undefined);
  if (moved !== undefined) throw new SnapshotMoved(source.uri, `the listing changed while being read (at ${moved})`);
}

async function readGeneration(source: PolicySource, previous: SourceCache, options: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  const entries = await list(source, options);
  const read = await mapBounded(entries, options.limits.concurrency, (entry) =>
    withOwnSignal(options.signal, (signal) => readEntry(source, entry, previous.get(entry.name), { ...options, signal }, counts)),
  );
  const vouched = source.confirm ? await untilAborted(source.confirm({ signal: options.signal }), options.signal) : false;
  if (!vouched && read.some((doc, i) => doc !== previous.get(entries[i].name))) await confirmListing(source, entries, options);
  const next = new Map<string, CachedDocument>();
  entries.forEach((entry, i) => {
    const doc = read[i];
    if (doc) next.set(entry.name, doc);
  });
  return next;
}

/** A key that changes when any document's version changes, appears or goes: equal keys → same set. */
export function snapshotKey(caches: readonly SourceCache[]): string {
  return caches.map((cache) => [...cache].map(([name, doc]) => `${name}\u0000${doc.version}`).join('\u0001')).join('\u0002');
}
