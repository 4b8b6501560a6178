/**
 * Which names of a source are policy documents, the same rule for every kind of source (and the one the
 * CLI applies to folders): `.yaml`, `.yml` and `.json`; nothing below a hidden segment (`.git`, a
 * ConfigMap's `..data` and `..2024_...` folders) or a `tests` / `node_modules` folder (golden tests keep
 * their resources beside the policies), nor below `lost+found`: the folder an ext2/3/4 file system keeps
 * at its root, so at the root of a mounted volume, readable by root alone (0700): walked by a server that
 * runs as any other user, it would fail the whole folder (EACCES) and the set would never load.
 */
const DOCUMENT_NAME = /\.(ya?ml|json)$/i;
const SKIPPED_SEGMENTS = new Set(['tests', 'node_modules', 'lost+found']);

/** `relative` is the name below the source's root, segments separated by `/`. */
export function isPolicyDocumentName(relative: string): boolean {
  if (!DOCUMENT_NAME.test(relative)) return false;
  return relative.split('/').every((segment, i, all) => segment !== '' && !segment.startsWith('.') && (i === all.length - 1 || !SKIPPED_SEGMENTS.has(segment)));
}

/** Skips a folder while walking: hidden, `tests`, `node_modules`, `lost+found`. */
export function isSkippedFolder(name: string): boolean {
  return name.startsWith('.') || SKIPPED_SEGMENTS.has(name);
}

/**
 * An object-store prefix names a folder: `clusters/a` lists `clusters/a/...`, never `clusters/ab/...`
 * (one cluster must not pick up another's policies). Empty means the whole bucket.
 */
export function folderPrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** Sorts entries by name so a set is built in the same order whatever order a store lists in. */
export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
