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
 *
 * A document written in place (`SourceEntry.inPlace`: a plain folder's file) can be caught half-written by
 * a read, and a cut at a document boundary (the policy written, its binding not yet), or a file truncated
 * to 0 bytes before it is written again, still parses: it would be taken as a new version. With `settle`
 * (a refresher that follows its sources, after its first read of the source), a new version, a new
 * document or a removal of such a document takes effect only once two looks at least `settle.ms` apart
 * found the same text (or the document gone); until then the version held stays in force, and the refresher
 * looks again when the settle time has passed. The first read is not slowed: nothing is held yet.
 *
 * A file or object over the size limit (as listed, or as its fetch finds it before reading the body), or
 * an entry its listing could not read (`SourceEntry.problem`: a folder link that loops), is a problem of
 * that entry alone, like a document that does not parse: it is not read, its last good version (if any)
 * stays in force, and the other documents load.
 *
 * Whatever the source, a new version that holds no document at all (an empty file or object, only
 * comments), of a document whose last good version held some, is refused like a version that does not
 * parse: that version stays in force, with the problem reported. Deleting the file or object removes it.
 */
import { utf8Length } from '../json/index.js';
import { parseDocumentsInSlices, type ParsedSource, type Problem } from '../policyset/index.js';
import { mapBounded, untilAborted, withOwnSignal } from './bounds.js';
import { byName } from './names.js';
import type { BytesShare, SetBytes } from './set-bytes.js';
import { NotUtf8Error } from './text.js';
import { nextTurn } from './turns.js';
import { DocumentTooLarge, DocumentUnreadable, ReadMayPass, SnapshotMoved, SourceError, type LoadLimits, type PolicySource, type SourceEntry } from './types.js';

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
  /** Written in place (SourceEntry.inPlace): its removal settles too. */
  inPlace?: boolean;
}

/** A change of an in-place document seen at one look, not yet in force. */
export interface PendingChange {
  /** The version seen; undefined: the document was gone. */
  version?: string;
  text?: string;
  /** When this very version (and text) was first seen (ms, the settle clock). */
  seenAt: number;
}

/** What a look at a source needs to let changes of in-place documents settle. */
export interface Settle {
  /** Time two looks must be apart to agree; 0 takes every change at once. */
  ms: number;
  now: () => number;
  /** Document name → the change seen and not yet in force; kept by the caller from one read to the next. */
  pending: Map<string, PendingChange>;
}

/**
 * Whether a change seen now has settled: true when an earlier look, at least `settle.ms` ago, found the
 * same text (or, for a removal, the document gone too; it is then no longer pending); else the change is
 * recorded (or kept, with its first sighting) as pending.
 */
function settled(settle: Settle, name: string, version: string | undefined, text: string | undefined): boolean {
  const now = settle.now();
  const seen = settle.pending.get(name);
  // The same text settles it, whatever its version: a writer that rewrites the same text keeps changing
  // the file's modification time. A removal (no text) settles when it is seen gone again.
  if (seen && seen.text === text && (text !== undefined || seen.version === version)) {
    if (now - seen.seenAt < settle.ms) return false;
    settle.pending.delete(name);
    return true;
  }
  settle.pending.set(name, { version, ...(text !== undefined ? { text } : {}), seenAt: now });
  return false;
}

/** When the soonest pending change can settle (ms, the settle clock), or undefined when none is pending. */
export function nextSettleAt(settle: Settle): number | undefined {
  let soonest: number | undefined;
  for (const p of settle.pending.values()) soonest = Math.min(soonest ?? Infinity, p.seenAt + settle.ms);
  return soonest;
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
  /** Let changes of in-place documents settle (see above); without it every change is taken at once. */
  settle?: Settle;
  /** The set's bytes, shared by the refresh's sources (set-bytes.ts); without it only each document is bounded. */
  setBytes?: SetBytes;
  /** This read's share of `setBytes` (made per read of the source by readGeneration). */
  share?: BytesShare;
  /**
   * Told the time each slice of a parse took: the refresh's time bound is for the store (listing and
   * fetching), and parsing, bounded by the set's size, takes longer on a throttled CPU (refresher.ts).
   */
  parsing?: (ms: number) => void;
}

export const KEPT_NOTE = '(the last good version of this document stays in force)';
const HELD_BELOW_NOTE = '(the documents last read below it stay in force)';

/** `lastGood`'s documents, with the problems of the version that replaces it. */
export function keepLastGood(problems: readonly Problem[], lastGood: ParsedSource): ParsedSource {
  return {
    source: lastGood.source,
    documents: lastGood.documents,
    problems: problems.map((p) => ({ ...p, message: `${p.message} ${KEPT_NOTE}` })),
  };
}

/**
 * The problem of a new version that holds no document while the last good one held some: an empty file is
 * what a write looks like before it begins (or after it failed, the disk full), so it never removes a
 * working policy. Deleting the file or object does.
 */
function emptiedProblems(fresh: ParsedSource, lastGood: ParsedSource | undefined): Problem[] {
  if (!lastGood || fresh.documents.length > 0 || fresh.problems.length > 0 || lastGood.documents.length === 0) return [];
  const held = lastGood.documents.length;
  return [
    {
      source: fresh.source,
      index: 0,
      path: '',
      message: `holds no document now, while its last good version held ${held} (an empty or unfinished write?); delete it to remove its documents`,
      effect: 'ignored',
    },
  ];
}

/**
 * An entry that is not read (over the size limit, or its listing's `problem`): no document, one problem;
 * its last good version stays in force. Taken at once, without settling: it never removes a policy.
 */
function unreadEntry(entry: SourceEntry, version: string, message: string, prior: CachedDocument | undefined, options: ReadOptions): CachedDocument {
  options.settle?.pending.delete(entry.name);
  const fresh: ParsedSource = { source: entry.label, documents: [], problems: [{ source: entry.label, index: 0, path: '', message, effect: 'ignored' }] };
  const lastGood = prior?.lastGood;
  const parsed = lastGood ? keepLastGood(fresh.problems, lastGood) : fresh;
  return { label: entry.label, version, bytes: 0, fresh, parsed, ...(lastGood ? { lastGood } : {}), ...(entry.inPlace ? { inPlace: true } : {}) };
}

function tooLargeMessage(bytes: number, limit: number): string {
  return `is ${bytes} bytes, over the limit of ${limit} bytes per file or object; not read`;
}

async function readEntry(
  source: PolicySource,
  entry: SourceEntry,
  prior: CachedDocument | undefined,
  options: ReadOptions,
  counts: ReadCounts,
): Promise<CachedDocument | undefined> {
  const limit = options.limits.maxDocumentBytes;
  if (prior && options.trustListedVersions && entry.version !== undefined && entry.version === prior.version) {
    options.settle?.pending.delete(entry.name); // back to the version held: a change seen before is void
    options.share?.take(prior.bytes);
    counts.skipped++;
    return prior;
  }
  if (entry.problem !== undefined) return unreadEntry(entry, entry.version ?? 'unread', entry.problem, prior, options);
  if (entry.size !== undefined && entry.size > limit) {
    return unreadEntry(entry, entry.version ?? `${entry.size} bytes`, tooLargeMessage(entry.size, limit), prior, options);
  }
  // Taken before the body is asked for when the listing gives its size; then set to what the read holds.
  const reserved = entry.size ?? 0;
  options.share?.take(reserved);
  const holding = (bytes: number) => options.share?.take(bytes - reserved);
  let result;
  try {
    result = await untilAborted(source.fetch(entry, { signal: options.signal, maxBytes: limit, ...(prior ? { ifNoneMatch: prior.version } : {}) }), options.signal);
  } catch (err) {
    holding(0);
    // Its version is not the listed one: the next refresh, which lists the same version, reads it again
    // (a permission fixed with chmod leaves the modification time, hence the listed version, as it was).
    if (err instanceof DocumentUnreadable) return unreadEntry(entry, `${entry.version ?? ''} unreadable`, `cannot be read: ${err.reason}; not read`, prior, options);
    // Bytes that are not UTF-8 (an object's, as a folder's file already says): a problem of its own.
    if (err instanceof NotUtf8Error) return unreadEntry(entry, `${entry.version ?? ''} unreadable`, `cannot be read: ${err.message}; not read`, prior, options);
    if (!(err instanceof DocumentTooLarge)) throw err;
    // Listed within the limit, over it when read: it changed since the listing (read the source again).
    const read = err.exact ? `${err.bytes}` : `more than ${err.limit}`;
    if (entry.size !== undefined) throw new SnapshotMoved(source.uri, `${entry.label} changed between the listing and its read (listed at ${entry.size} bytes, ${read} when read)`);
    const message = err.exact ? tooLargeMessage(err.bytes, err.limit) : `is more than ${err.limit} bytes, the limit per file or object; not read past it`;
    return unreadEntry(entry, entry.version ?? `${err.bytes} bytes`, message, prior, options);
  }
  const listed = entry.version;
  if (listed !== undefined) {
    const found = result.status === 'gone' ? 'it is gone' : result.status === 'not-modified' ? `it still has ${prior?.version}` : `it has ${result.version}`;
    const held = result.status === 'gone' ? undefined : result.status === 'not-modified' ? prior?.version : result.version;
    if (held !== listed) throw new SnapshotMoved(source.uri, `${entry.label} changed between the listing and its read (listed at ${listed}, ${found})`);
  }
  switch (result.status) {
    case 'gone':
      holding(0);
      return undefined;
    case 'not-modified':
      if (!prior) throw new SourceError(source.uri, `${entry.label}: the store answered "not modified" to an unconditional request`);
      holding(prior.bytes);
      options.settle?.pending.delete(entry.name);
      counts.notModified++;
      return prior;
    case 'parsed':
      holding(0);
      counts.fetched++;
      return { label: entry.label, version: result.version, bytes: 0, fresh: result.parsed, parsed: result.parsed, ...(prior?.lastGood ? { lastGood: prior.lastGood } : {}) };
    case 'fetched': {
      counts.fetched++;
      const bytes = utf8Length(result.text);
      // (Its size was within the limit; decoded, invalid UTF-8 can grow past it.)
      if (bytes > limit) {
        holding(0);
        return unreadEntry(entry, result.version, tooLargeMessage(bytes, limit), prior, options);
      }
      holding(bytes);
      // Written in place and maybe caught mid-write: the version held stays until a later look agrees.
      if (entry.inPlace && options.settle && options.settle.ms > 0 && !settled(options.settle, entry.name, result.version, result.text)) return prior;
      // Parsed a slice at a time, letting the event loop turn between slices: on the Node server this
      // thread answers probes and reviews too, and a file of 1 MiB takes the YAML parser a second or more.
      // A refresh aborted meanwhile (its time bound, the server stopping) stops parsing at the next slice.
      let slice = performance.now();
      const pause = async () => {
        options.parsing?.(performance.now() - slice);
        await untilAborted(nextTurn(), options.signal);
        slice = performance.now();
      };
      const fresh = await parseDocumentsInSlices(entry.label, result.text, pause);
      options.parsing?.(performance.now() - slice);
      const lastGood = prior?.lastGood;
      const refused = fresh.problems.length > 0 ? fresh.problems : emptiedProblems(fresh, lastGood);
      const parsed = refused.length > 0 && lastGood ? keepLastGood(refused, lastGood) : fresh;
      return { label: entry.label, version: result.version, bytes, fresh, parsed, ...(lastGood ? { lastGood } : {}), ...(entry.inPlace ? { inPlace: true } : {}) };
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

async function readGeneration(source: PolicySource, previous: SourceCache, given: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  const share = given.setBytes?.share(source.uri);
  try {
    return await readGenerationWith(source, previous, share ? { ...given, share } : given, counts);
  } catch (err) {
    share?.giveBack();
    throw err;
  }
}

async function readGenerationWith(source: PolicySource, previous: SourceCache, options: ReadOptions, counts: ReadCounts): Promise<Map<string, CachedDocument>> {
  const entries = await list(source, options);
  // A read that may pass fails the refresh, but after the others: stopping at the first left the objects
  // not yet read to fail one refresh each later, so a first load meeting several never loaded until as
  // many refreshes had failed (failing-reads.ts sets each aside at its second failure in a row).
  // It is also what the refresh fails with when another read stops it (the source moved): read again at
  // once, the same object would count its second failure in a row within one refresh.
  let mayPass: ReadMayPass | undefined;
  let read: (CachedDocument | undefined)[];
  try {
    read = await mapBounded(entries, options.limits.concurrency, async (entry) => {
      try {
        return await withOwnSignal(options.signal, (signal) => readEntry(source, entry, previous.get(entry.name), { ...options, signal }, counts));
      } catch (err) {
        if (!(err instanceof ReadMayPass) || options.signal.aborted) throw err;
        mayPass ??= err;
        return undefined;
      }
    });
  } catch (err) {
    throw mayPass && !options.signal.aborted ? mayPass : err;
  }
  if (mayPass) throw mayPass;
  const vouched = source.confirm ? await untilAborted(source.confirm({ signal: options.signal }), options.signal) : false;
  if (!vouched && read.some((doc, i) => doc !== previous.get(entries[i].name))) await confirmListing(source, entries, options);
  const found = new Map<string, CachedDocument>();
  entries.forEach((entry, i) => {
    const doc = read[i];
    if (doc) found.set(entry.name, doc);
  });
  // A folder that could not be listed keeps what was read below it before, as an unreadable file keeps
  // its last good version.
  let kept = false;
  for (const entry of entries) {
    if (!entry.holdsBelow) continue;
    let held = 0;
    for (const [name, prior] of previous) {
      if (!name.startsWith(entry.name) || found.has(name)) continue;
      found.set(name, prior);
      held++;
    }
    if (held === 0) continue;
    kept = true;
    const folder = found.get(entry.name);
    if (!folder || folder === previous.get(entry.name)) continue; // noted when it was first read so
    // Its problem says what stays in force (a first read, or the CLI, holds nothing below it).
    const note = (problems: readonly Problem[]) => problems.map((p) => ({ ...p, message: `${p.message} ${HELD_BELOW_NOTE}` }));
    found.set(entry.name, { ...folder, fresh: { ...folder.fresh, problems: note(folder.fresh.problems) }, parsed: { ...folder.parsed, problems: note(folder.parsed.problems) } });
  }
  const settle = options.settle && options.settle.ms > 0 ? options.settle : undefined;
  if (!settle) return kept ? sortedByName(found) : found;
  // An in-place document gone from this look (deleted, or between a writer's delete and create) stays
  // until a later look agrees; changes seen of documents no longer listed are forgotten.
  for (const [name, prior] of previous) {
    if (found.has(name) || !prior.inPlace) continue;
    if (settled(settle, name, undefined, undefined)) continue;
    found.set(name, prior);
    kept = true;
  }
  for (const name of [...settle.pending.keys()]) {
    if (!found.has(name) && !previous.has(name) && !entries.some((e) => e.name === name)) settle.pending.delete(name);
  }
  return kept ? sortedByName(found) : found;
}

function sortedByName(docs: Map<string, CachedDocument>): Map<string, CachedDocument> {
  return new Map([...docs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A key that changes when any document's version changes, appears or goes: equal keys → same set. */
export function snapshotKey(caches: readonly SourceCache[]): string {
  return caches.map((cache) => [...cache].map(([name, doc]) => `${name}\u0000${doc.version}`).join('\u0001')).join('\u0002');
}
