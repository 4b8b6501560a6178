/**
 * `file://DIR` (or a plain path): the policy files of a folder, walked like the CLI walks it, or one file.
 * Made for a ConfigMap mounted in a Knative pod: the kubelet writes a new `..<timestamp>` folder and swaps
 * the `..data` symlink in one rename, and each file is a symlink through `..data`, so a file's version is
 * the identity of what its path resolves to (device, inode, size, mtime) and the swap changes every
 * version at once. A file that changes while it is being read fails the refresh (the last good set stays)
 * and is read again once it is quiet.
 */
import { watch as watchFs, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Stats } from 'node:fs';
import { isPolicyDocumentName, isSkippedFolder } from '../names.js';
import { documentTooLarge, SourceError, type PolicySource, type SourceEntry } from '../types.js';

const MAX_FOLDER_DEPTH = 32;

function versionOf(s: Stats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export interface DirectorySourceOptions {
  uri: string;
  path: string;
}

export function directorySource({ uri, path }: DirectorySourceOptions): PolicySource {
  const fail = (message: string, cause?: unknown) => new SourceError(uri, message, cause === undefined ? undefined : { cause });
  let singleFile = false;

  async function walk(dir: string, relative: string, depth: number, out: SourceEntry[], maxEntries: number): Promise<void> {
    if (depth > MAX_FOLDER_DEPTH) throw fail(`${dir}: folders nested deeper than ${MAX_FOLDER_DEPTH} levels (a link loop?)`);
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      if (name.startsWith('.')) continue; // hidden, and a ConfigMap's ..data / ..<timestamp>
      const full = join(dir, name);
      const rel = relative ? `${relative}/${name}` : name;
      let s: Stats;
      try {
        s = await stat(full); // follows symlinks, as ConfigMap files are links
      } catch (err) {
        if (isMissing(err)) continue; // a dangling link, or removed since readdir
        throw err;
      }
      if (s.isDirectory()) {
        if (!isSkippedFolder(name)) await walk(full, rel, depth + 1, out, maxEntries);
      } else if (s.isFile() && isPolicyDocumentName(rel)) {
        out.push({ name: rel, label: full, version: versionOf(s), size: s.size });
        if (out.length > maxEntries) throw fail(`holds more than ${maxEntries} policy files`);
      }
    }
  }

  const fullPath = (entry: SourceEntry) => (singleFile ? path : join(path, entry.name));

  return {
    uri,
    async list({ maxEntries }) {
      let root: Stats;
      try {
        root = await stat(path);
      } catch (err) {
        throw fail(isMissing(err) ? (uri === path ? 'no such file or folder' : `${path}: no such file or folder`) : `cannot read ${path}: ${(err as Error).message}`, err);
      }
      singleFile = root.isFile();
      if (singleFile) return [{ name: basename(path), label: path, version: versionOf(root), size: root.size }];
      const out: SourceEntry[] = [];
      try {
        await walk(path, '', 0, out, maxEntries);
      } catch (err) {
        if (err instanceof SourceError) throw err;
        throw fail(`cannot list ${path}: ${(err as Error).message}`, err);
      }
      return out;
    },
    async fetch(entry, { ifNoneMatch, maxBytes, signal }) {
      const file = fullPath(entry);
      let before: Stats;
      try {
        before = await stat(file);
      } catch (err) {
        if (isMissing(err)) return { status: 'gone' };
        throw fail(`cannot read ${file}: ${(err as Error).message}`, err);
      }
      const version = versionOf(before);
      if (ifNoneMatch === version) return { status: 'not-modified' };
      if (before.size > maxBytes) throw documentTooLarge(uri, file, before.size, maxBytes);
      let text: string;
      let after: Stats;
      try {
        text = await readFile(file, { encoding: 'utf8', signal });
        after = await stat(file);
      } catch (err) {
        if (isMissing(err)) return { status: 'gone' };
        throw fail(`cannot read ${file}: ${(err as Error).message}`, err);
      }
      if (versionOf(after) !== version || (entry.version !== undefined && entry.version !== version)) {
        throw fail(`${file} changed while being read (still being written?); it is read again once quiet`);
      }
      return { status: 'fetched', version, text };
    },
    watch(onChange) {
      // The folder itself: a ConfigMap update renames `..data` in it; an editor's save touches a file in it.
      // Changes deeper down are found by the refresh interval.
      const target = singleFile ? dirname(path) : path;
      let watcher: FSWatcher | undefined;
      try {
        watcher = watchFs(target, { persistent: false }, () => onChange());
        watcher.on('error', () => onChange());
      } catch {
        return () => {}; // cannot watch (missing folder, no inotify): the interval still polls
      }
      return () => watcher?.close();
    },
  };
}
