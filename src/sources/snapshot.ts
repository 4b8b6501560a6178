/**
 * Reads one source against what was read last time: a document whose listed version is unchanged is not
 * fetched at all; one whose version is unknown or different is fetched conditionally (If-None-Match), so
 * a store that still has the version held answers "not modified" without a body. Only changed text is
 * parsed again. A document that no longer reads (half written, corrupt) keeps its last readable version
 * in force, with the problem reported; on first sight it is reported and the other documents load.
 */
import { parseDocuments, type ParsedSource } from '../policyset/index.js';
import { mapBounded, untilAborted } from './bounds.js';
import { byName } from './names.js';
import { SourceError, type LoadLimits, type PolicySource, type SourceEntry } from './types.js';

export interface CachedDocument {
  label: string;
  version: string;
  /** UTF-8 size of the text (0 for documents that came parsed). */
  bytes: number;
  /** What goes into the set. */
  parsed: ParsedSource;
  /** The newest version that read without a problem, kept in force while a newer one does not read. */
  lastReadable?: ParsedSource;
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

export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function keepLastReadable(parsed: ParsedSource, lastReadable: ParsedSource): ParsedSource {
  return {
    source: parsed.source,
    documents: lastReadable.documents,
    problems: parsed.problems.map((p) => ({ ...p, message: `${p.message} (the last readable version of this document stays in force)` })),
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
    throw new SourceError(source.uri, `${entry.label} is ${entry.size} bytes, over the limit of ${options.limits.maxDocumentBytes}`);
  }
  if (prior && options.trustListedVersions && entry.version !== undefined && entry.version === prior.version) {
    counts.skipped++;
    return prior;
  }
  const result = await untilAborted(
    source.fetch(entry, { signal: options.signal, maxBytes: options.limits.maxDocumentBytes, ...(prior ? { ifNoneMatch: prior.version } : {}) }),
    options.signal,
  );
  switch (result.status) {
    case 'gone':
      return undefined;
    case 'not-modified':
      if (!prior) throw new SourceError(source.uri, `${entry.label}: the store answered "not modified" to an unconditional request`);
      counts.notModified++;
      return prior;
    case 'parsed':
      counts.fetched++;
      return { label: entry.label, version: result.version, bytes: 0, parsed: result.parsed, lastReadable: result.parsed };
    case 'fetched': {
      counts.fetched++;
      const bytes = utf8Length(result.text);
      if (bytes > options.limits.maxDocumentBytes) {
        throw new SourceError(source.uri, `${entry.label} is ${bytes} bytes, over the limit of ${options.limits.maxDocumentBytes}`);
      }
      const parsed = parseDocuments(entry.label, result.text);
      if (parsed.problems.length === 0) return { label: entry.label, version: result.version, bytes, parsed, lastReadable: parsed };
      const lastReadable = prior?.lastReadable;
      return {
        label: entry.label,
        version: result.version,
        bytes,
        parsed: lastReadable ? keepLastReadable(parsed, lastReadable) : parsed,
        ...(lastReadable ? { lastReadable } : {}),
      };
    }
  }
}

/** Lists and reads one source; throws SourceError (or the store's error) when it cannot be read whole. */
export async function readSource(source: PolicySource, previous: SourceCache, options: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  const listed = await untilAborted(source.list({ signal: options.signal, maxEntries: options.limits.maxDocuments }), options.signal);
  if (listed.length > options.limits.maxDocuments) {
    throw new SourceError(source.uri, `lists ${listed.length} documents, over the limit of ${options.limits.maxDocuments}`);
  }
  const entries = [...listed].sort(byName);
  const read = await mapBounded(entries, options.limits.concurrency, (entry) => readEntry(source, entry, previous.get(entry.name), options, counts));
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
