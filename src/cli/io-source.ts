/**
 * A folder (or one file) read through the command's CliIO instead of `node:fs`: the in-memory file
 * systems of the CLI tests. Walked by the same rule as every other source (`isPolicyDocumentName`,
 * `isSkippedFolder`: hidden entries, `tests/` and `node_modules/` skipped); the real `amender` reads
 * folders with the directory source of src/sources/node, as the server does.
 */
import { isPolicyDocumentName, isSkippedFolder, SourceError, type PolicySource, type SourceEntry, type SourceResolvers } from '../sources/index.js';
import { readInput } from './documents.js';
import { describeFsError } from './errors.js';
import type { CliIO } from './io.js';

const MAX_FOLDER_DEPTH = 32;

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

export function cliIoSource(uri: string, path: string, io: CliIO): PolicySource {
  let singleFile = false;
  const walk = async (dir: string, relative: string, depth: number, out: SourceEntry[], maxEntries: number): Promise<void> => {
    if (depth > MAX_FOLDER_DEPTH) throw new SourceError(uri, `${dir}: folders nested deeper than ${MAX_FOLDER_DEPTH} levels (a link loop?)`);
    for (const name of [...((await io.listDir?.(dir)) ?? [])].sort()) {
      const full = join(dir, name);
      const rel = relative ? `${relative}/${name}` : name;
      if ((await io.listDir?.(full)) !== undefined) {
        if (!isSkippedFolder(name)) await walk(full, rel, depth + 1, out, maxEntries);
      } else if (isPolicyDocumentName(rel)) {
        out.push({ name: rel, label: full });
        if (out.length > maxEntries) throw new SourceError(uri, `holds more than ${maxEntries} policy files`);
      }
    }
  };
  return {
    uri,
    async list({ maxEntries }) {
      singleFile = (await io.listDir?.(path)) === undefined;
      if (singleFile) return [{ name: path, label: path }];
      const out: SourceEntry[] = [];
      await walk(path, '', 0, out, maxEntries);
      return out;
    },
    async fetch(entry) {
      const file = singleFile ? path : join(path, entry.name);
      let text: string;
      try {
        text = await io.readFile(file);
      } catch (err) {
        // The message names the path itself: keep only what describeFsError adds.
        throw new SourceError(uri, describeFsError(file, err).slice(uri === file ? file.length + 2 : 0));
      }
      return { status: 'fetched', version: `${text.length}`, text };
    },
  };
}

/** Folders and files through `io`; no other kind of source (tests give no S3 or bundled set). */
export function cliIoResolvers(io: CliIO): SourceResolvers {
  return { directory: (u) => cliIoSource(u.uri, u.path, io) };
}

/**
 * `-` among the policy paths: the policies on standard input, as `kyverno apply - --resource …` reads
 * them (policy/load.go stdinLoad). Read once, when first fetched: a refresh that lists again gets the
 * same text, never an emptied stream.
 */
function stdinPolicySource(uri: string, io: CliIO): PolicySource {
  let text: Promise<string> | undefined;
  const entry: SourceEntry = { name: 'standard input', label: 'standard input' };
  return {
    uri,
    async list() {
      return [entry];
    },
    async fetch() {
      text ??= readInput('-', io);
      const read = await text;
      return { status: 'fetched', version: `${read.length}`, text: read };
    },
  };
}

/** `resolvers` with `-` read as standard input. */
export function withStdinPolicies(resolvers: SourceResolvers, io: CliIO): SourceResolvers {
  const directory = resolvers.directory;
  if (!directory) return resolvers;
  return { ...resolvers, directory: (u) => (u.path === '-' ? stdinPolicySource(u.uri, io) : directory(u)) };
}
