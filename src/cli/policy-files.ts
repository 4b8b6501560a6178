/**
 * Reads the documents of `--policies PATH...`: each PATH is a file, or a folder walked recursively for
 * `.yaml`, `.yml` and `.json` files in name order. Hidden entries (`.git`, `.tests`) and folders named
 * `tests` (where golden tests keep their resources beside the policies) are skipped.
 */
import type { CliIO } from './io.js';
import { CliInputError, describeFsError } from './errors.js';

export interface PolicyText {
  /** The path as given, or below a given folder. */
  source: string;
  text: string;
}

const DOCUMENT_FILE = /\.(ya?ml|json)$/i;
const SKIPPED_FOLDERS = new Set(['tests', 'node_modules']);
const MAX_FOLDER_DEPTH = 32;

export async function readPolicyTexts(paths: readonly string[], io: CliIO): Promise<PolicyText[]> {
  const out: PolicyText[] = [];
  for (const path of paths) await readPath(stripFileScheme(path), io, out, 0, true);
  return out;
}

/** `file:///etc/amender` and `file://./dir` name the same thing as the plain path. */
export function stripFileScheme(path: string): string {
  return path.startsWith('file://') ? path.slice('file://'.length) : path;
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

async function readPath(path: string, io: CliIO, out: PolicyText[], depth: number, given: boolean): Promise<void> {
  const entries = io.listDir ? await io.listDir(path) : undefined;
  if (entries === undefined) {
    if (!given && !DOCUMENT_FILE.test(path)) return;
    let text: string;
    try {
      text = await io.readFile(path);
    } catch (err) {
      throw new CliInputError(`cannot read policies from ${describeFsError(path, err)}`);
    }
    out.push({ source: path, text });
    return;
  }
  if (depth >= MAX_FOLDER_DEPTH) throw new CliInputError(`${path}: folders nested deeper than ${MAX_FOLDER_DEPTH} levels (a link loop?)`);
  for (const name of [...entries].sort()) {
    if (name.startsWith('.') || SKIPPED_FOLDERS.has(name)) continue;
    await readPath(join(path, name), io, out, depth + 1, false);
  }
}
