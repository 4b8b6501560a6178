/**
 * `file://DIR` (or a plain path): the policy files of a folder, walked like the CLI walks it, or one file.
 *
 * Made for a ConfigMap mounted in a Knative pod: the kubelet writes each generation into a new
 * `..<timestamp>` folder and swaps the `..data` symlink to it in one rename; each file is a symlink
 * through `..data`. A folder holding `..data` is read as one snapshot: the link is resolved once when the
 * folder is listed, every file is listed and read in the folder it names (never through the per-file
 * links, which may already point to the next generation), and after the reads `confirm` checks that
 * `..data` still names that folder. A swap during a refresh makes it read again (SnapshotMoved), so a set
 * never mixes two generations. Labels stay the paths a person sees (`DIR/name.yaml`).
 *
 * A plain folder has no generations: a file's version is the identity of what its path resolves to
 * (device, inode, size, mtime), and a file that changes while it is being read fails the refresh (the
 * last good set stays) and is read again once it is quiet. Its files are written in place
 * (`SourceEntry.inPlace`), so a write can also be caught between two writes, cut at a document boundary
 * or truncated to 0 bytes, where it still parses: a refresher that follows the folder takes a changed,
 * new or removed file only once it reads the same a settle time later (snapshot.ts). A ConfigMap's files
 * are not: the kubelet swaps a whole generation in one rename.
 */
import { constants, statSync, watch as watchFs, type FSWatcher } from 'node:fs';
import { lstat, open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Stats } from 'node:fs';
import { isPolicyDocumentName, isSkippedFolder } from '../names.js';
import { decodeDocumentBytes, NotUtf8Error } from '../text.js';
import { DocumentTooLarge, DocumentUnreadable, SnapshotMoved, SourceError, type PolicySource, type SourceEntry } from '../types.js';

const MAX_FOLDER_DEPTH = 32;
/** The link an atomic writer (the kubelet's ConfigMap / Secret / projected volumes) swaps per generation. */
const DATA_LINK = '..data';

/** One folder read as a snapshot: `..data` resolved to `target` when the listing began. */
interface Snapshot {
  link: string;
  target: string;
}

/** A folder entry's name as text; one that is not UTF-8 is shown with its other bytes as \xNN. */
function nameOf(raw: Buffer): { name: string; raw: Buffer; undecodable: boolean } {
  const text = raw.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(raw)) return { name: text, raw, undecodable: false };
  const shown = [...raw].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
  return { name: shown, raw, undecodable: true };
}

function versionOf(s: Stats): string {
  // ctime too: an edit that keeps the size and sets the modification time back (cp -p, builds that stamp a
  // fixed time) still changes it.
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/** What a path that is neither a regular file nor a folder is, for a problem that names it. */
function notAFile(s: Stats): string {
  const kind = s.isFIFO() ? 'a FIFO (named pipe)' : s.isSocket() ? 'a socket' : s.isCharacterDevice() || s.isBlockDevice() ? 'a device' : 'not a regular file';
  return kind.startsWith('not') ? kind : `not a regular file but ${kind}`;
}

/**
 * Opens a file that its stat showed regular without ever blocking: O_NONBLOCK keeps the open of a FIFO
 * swapped in since (it would wait for a writer) from holding a thread of the pool for ever. Undefined when
 * what is open is not a regular file.
 */
async function openRegular(file: string): Promise<FileHandle | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

/** How often a folder that cannot be watched (missing, removed) is looked for again. */
const REWATCH_MS = 1000;

/**
 * Watches `folder` and calls `onChange` when it may have changed. A watch follows the folder it was set
 * on: once that folder is removed (`rm -rf` and a new copy, a volume remounted) it would never fire
 * again, and with no refresh interval the set would keep the folder's "no such file or folder" for good.
 * So a folder that is gone, or that cannot be watched yet, is looked for every second, and watched again
 * (with a change reported) once it is there. Nor does a watch see a link on the folder's path swapped to
 * another folder (`ln -sfn release-2 current`, git-sync's worktree link): nothing changes in the folder
 * watched, the old one left in place. So what the path names is also looked at every second, and a
 * watch on a folder it no longer names is lost the same way.
 */
function watchFolder(folder: string, onChange: () => void): () => void {
  let watcher: FSWatcher | undefined;
  /** The identity of the folder `watcher` watches. */
  let watched: { dev: number; ino: number } | undefined;
  let retry: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const lost = () => {
    watcher?.close();
    watcher = undefined;
    if (stopped || retry) return;
    retry = setInterval(() => {
      if (!start()) return;
      clearInterval(retry);
      retry = undefined;
      onChange();
    }, REWATCH_MS);
    retry.unref?.();
  };
  /** After an event of watch `w`: `folder` gone, or replaced (another device or inode), means `w` is lost. */
  const check = (w: FSWatcher, dev: number, ino: number) => {
    const gone = () => watcher === w && lost();
    stat(folder).then((s) => (s.dev !== dev || s.ino !== ino) && gone(), gone);
  };
  const start = (): boolean => {
    let s: Stats;
    try {
      s = statSync(folder);
      const w: FSWatcher = watchFs(folder, { persistent: false }, () => {
        onChange();
        check(w, s.dev, s.ino);
      });
      w.on('error', () => {
        onChange();
        lost();
      });
      watcher = w;
      watched = { dev: s.dev, ino: s.ino };
      return true;
    } catch {
      return false; // missing, or no inotify left: looked for again (the refresh interval still polls)
    }
  };
  if (!start()) lost();
  const swapped = setInterval(() => {
    if (watcher && watched) check(watcher, watched.dev, watched.ino);
  }, REWATCH_MS);
  swapped.unref?.();
  return () => {
    stopped = true;
    clearInterval(retry);
    clearInterval(swapped);
    watcher?.close();
  };
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * A file that cannot be read for a reason of its own, which stays until fixed: no permission (a file
 * written 0600 by another user beside the others), a link that loops. A problem of that file alone (the
 * other files load); any other error (EIO, EMFILE...) fails the source, and the refresh is tried again.
 */
function isUnreadable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'EACCES' || code === 'EPERM' || code === 'ELOOP';
}

function isDenied(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/**
 * Thrown by the walk of a folder below the root that cannot be read for a reason of its own (no read or
 * search permission: a folder made 0700 by another user, `chmod -R 644`): its parent lists it as one
 * entry with a problem, as an unreadable file is, and the documents last read below it stay in force.
 */
class FolderUnreadable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface DirectorySourceOptions {
  uri: string;
  path: string;
}

export function directorySource({ uri, path }: DirectorySourceOptions): PolicySource {
  const fail = (message: string, cause?: unknown) => new SourceError(uri, message, cause === undefined ? undefined : { cause });
  let singleFile = false;
  /** The snapshots of the last listing (a `..data` folder, at any depth), checked by `confirm`. */
  let snapshots: Snapshot[] = [];
  /** Where each entry of the last listing is read: inside its snapshot's target, or its own path. */
  let readPaths = new WeakMap<SourceEntry, { file: string; inSnapshot: boolean }>();
  /** Entries of the last listing outside any snapshot (a plain folder's files): `confirm` cannot vouch for them. */
  let plainEntries = 0;

  /** Throws SnapshotMoved when a snapshot's `..data` no longer names the folder it named at listing. */
  async function checkSnapshots(): Promise<void> {
    for (const { link, target } of snapshots) {
      let now: string | undefined;
      try {
        now = await realpath(link);
      } catch (err) {
        if (!isMissing(err)) throw fail(`cannot read ${link}: ${(err as Error).message}`, err);
      }
      if (now !== target) throw new SnapshotMoved(uri, `${link} was swapped while being read (from ${target} to ${now ?? 'nothing'})`);
    }
  }

  /** `dir`'s snapshot folder when it holds `..data` (a ConfigMap mount), else undefined. */
  async function snapshotOf(dir: string): Promise<string | undefined> {
    const link = join(dir, DATA_LINK);
    try {
      await lstat(link);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    const target = await realpath(link);
    snapshots.push({ link, target });
    return target;
  }

  /**
   * Lists `dir` (shown as `shown`, the path a person sees) into `out`. `within`: the real paths of the
   * folders being walked, `dir`'s included; a link back to one of them is a loop, listed as an entry
   * with a problem (not followed), so that it costs only itself.
   */
  async function walk(dir: string, shown: string, relative: string, depth: number, inSnapshot: boolean, out: SourceEntry[], maxEntries: number, within: ReadonlySet<string>): Promise<void> {
    if (depth > MAX_FOLDER_DEPTH) throw fail(`${shown}: folders nested deeper than ${MAX_FOLDER_DEPTH} levels`);
    let target: string | undefined;
    let names: { name: string; raw: Buffer; undecodable: boolean }[];
    try {
      target = await snapshotOf(dir);
      // As bytes: a name that is not UTF-8 (a Latin-1 é) read as a string gets U+FFFD, and leads nowhere.
      names = (await readdir(target ?? dir, { encoding: 'buffer' })).map(nameOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (err) {
      if (depth > 0 && isUnreadable(err)) throw new FolderUnreadable((err as Error).message);
      throw err;
    }
    const folder = target ?? dir;
    const snapshot = inSnapshot || target !== undefined;
    for (const { name, raw, undecodable } of names) {
      if (name.startsWith('.')) continue; // hidden, and a ConfigMap's ..data / ..<timestamp>
      const full = join(folder, name);
      const rel = relative ? `${relative}/${name}` : name;
      if (undecodable) {
        // Reported rather than passed over: its policies would be missing without a word.
        const found = await stat(Buffer.concat([Buffer.from(`${folder}/`), raw])).catch(() => undefined);
        if (found && (found.isDirectory() || isPolicyDocumentName(rel))) {
          out.push({ name: rel, label: join(shown, name), version: 'name not UTF-8', problem: 'its name is not valid UTF-8, which Amender reads file names as: rename it; not read' });
          if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
        }
        continue;
      }
      let s: Stats;
      try {
        s = await stat(full); // follows symlinks, as ConfigMap files are links
      } catch (err) {
        if (isMissing(err)) continue; // a dangling link, or removed since readdir
        if (isUnreadable(err) && isPolicyDocumentName(rel)) {
          out.push({ name: rel, label: join(shown, name), version: 'unreadable', problem: `cannot be read: ${(err as Error).message}; not read` });
          if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
          continue;
        }
        // A link that loops, named like no policy file: it leads nowhere, as a dangling link.
        if ((err as { code?: string }).code === 'ELOOP') continue;
        // Search permission denied on this very folder (it lists, but nothing in it can be looked at).
        if (depth > 0 && isDenied(err)) throw new FolderUnreadable((err as Error).message);
        throw err;
      }
      if (s.isDirectory()) {
        if (isSkippedFolder(name)) continue;
        let real: string;
        try {
          real = await realpath(full);
        } catch (err) {
          if (isMissing(err)) continue; // removed since readdir
          throw err;
        }
        if (within.has(real)) {
          out.push({ name: rel, label: join(shown, name), version: 'link loop', problem: `a link loop: leads back to ${real}, which holds it; not followed` });
          if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
          continue;
        }
        const mark = out.length;
        try {
          await walk(full, join(shown, name), rel, depth + 1, snapshot, out, maxEntries, new Set(within).add(real));
        } catch (err) {
          if (!(err instanceof FolderUnreadable)) throw err;
          // One entry for the folder; its documents held from an earlier read stay (SourceEntry.holdsBelow).
          out.length = mark;
          out.push({
            name: `${rel}/`,
            label: join(shown, name),
            version: 'unreadable folder',
            problem: `cannot be read: ${err.reason}; not read`,
            holdsBelow: true,
          });
          if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
        }
      } else if (!s.isFile() && isPolicyDocumentName(rel)) {
        // A FIFO named x.yaml would block the read that opens it until a writer comes: listed, never opened.
        out.push({ name: rel, label: join(shown, name), version: 'not a file', problem: `${notAFile(s)}; not read` });
        if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
      } else if (s.isFile() && isPolicyDocumentName(rel)) {
        const entry: SourceEntry = { name: rel, label: join(shown, name), version: versionOf(s), size: s.size, ...(snapshot ? {} : { inPlace: true }) };
        readPaths.set(entry, { file: full, inSnapshot: snapshot });
        if (!snapshot) plainEntries++;
        out.push(entry);
        if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
      }
    }
  }

  return {
    uri,
    async list({ maxEntries }) {
      snapshots = [];
      readPaths = new WeakMap();
      plainEntries = 0;
      let root: Stats;
      try {
        root = await stat(path);
      } catch (err) {
        throw fail(isMissing(err) ? (uri === path ? 'no such file or folder' : `${path}: no such file or folder`) : `cannot read ${path}: ${(err as Error).message}`, err);
      }
      singleFile = root.isFile();
      if (!singleFile && !root.isDirectory()) throw fail(`${path} is ${notAFile(root)}, not a file or folder`);
      if (singleFile) return [{ name: basename(path), label: path, version: versionOf(root), size: root.size, inPlace: true }];
      const out: SourceEntry[] = [];
      try {
        await walk(path, path, '', 0, false, out, maxEntries, new Set([await realpath(path)]));
      } catch (err) {
        if (err instanceof SourceError) throw err;
        // A snapshot folder removed under the walk: the kubelet swapped `..data` and cleaned up.
        if (isMissing(err) && snapshots.length > 0) await checkSnapshots();
        throw fail(`cannot list ${path}: ${(err as Error).message}`, err);
      }
      return out;
    },
    async fetch(entry, { ifNoneMatch, maxBytes, signal }) {
      const where = readPaths.get(entry);
      const file = where?.file ?? (singleFile ? path : join(path, entry.name));
      const inSnapshot = where?.inSnapshot ?? false;
      // In a snapshot, a file that went away means its generation was cleaned up after a swap.
      const gone = () => {
        if (inSnapshot) throw new SnapshotMoved(uri, `${entry.label} went away while being read (its ConfigMap generation was replaced)`);
        return { status: 'gone' } as const;
      };
      let before: Stats;
      try {
        before = await stat(file);
      } catch (err) {
        if (isMissing(err)) return gone();
        if (isUnreadable(err)) throw new DocumentUnreadable(uri, entry.label, (err as Error).message);
        throw fail(`cannot read ${entry.label}: ${(err as Error).message}`, err);
      }
      const version = versionOf(before);
      if (ifNoneMatch === version) return { status: 'not-modified' };
      if (before.size > maxBytes) throw new DocumentTooLarge(uri, entry.label, before.size, maxBytes);
      // Replaced since the listing (a FIFO swapped in): the refresh lists again and finds it as it is now.
      if (!before.isFile()) throw new SnapshotMoved(uri, `${entry.label} is no longer a regular file`);
      let text: string;
      let after: Stats;
      try {
        const handle = await openRegular(file);
        if (!handle) throw new SnapshotMoved(uri, `${entry.label} is no longer a regular file`);
        try {
          text = decodeDocumentBytes(await handle.readFile({ signal }));
        } finally {
          await handle.close();
        }
        after = await stat(file);
      } catch (err) {
        if (err instanceof SourceError) throw err;
        if (err instanceof NotUtf8Error) throw new DocumentUnreadable(uri, entry.label, err.message);
        if (isMissing(err)) return gone();
        if (isUnreadable(err)) throw new DocumentUnreadable(uri, entry.label, (err as Error).message);
        throw fail(`cannot read ${entry.label}: ${(err as Error).message}`, err);
      }
      if (versionOf(after) !== version || (entry.version !== undefined && entry.version !== version)) {
        throw fail(`${entry.label} changed while being read (still being written?); it is read again once quiet`);
      }
      return { status: 'fetched', version, text };
    },
    async confirm() {
      await checkSnapshots();
      // A single file or a plain folder's files: the refresh lists again to confirm when it read anything new.
      return !singleFile && snapshots.length > 0 && plainEntries === 0;
    },
    watch(onChange) {
      // The folder itself: a ConfigMap update renames `..data` in it; an editor's save touches a file in it.
      // Changes deeper down are found by the refresh interval.
      return watchFolder(singleFile ? dirname(path) : path, onChange);
    },
  };
}
