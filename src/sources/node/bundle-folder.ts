/**
 * Build step: validate `policies/` and write the bundle the `bundled` source serves. Run by the build
 * script before esbuild; fails (exit 1) with every problem's document, field and message:
 *
 *   node --import tsx src/sources/node/bundle-folder.ts policies dist/policy-bundle.json
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePolicies, formatBundleProblems, type BundleResult } from '../bundle.js';
import { DEFAULT_LOAD_LIMITS } from '../types.js';
import { directorySource } from './directory.js';

/** Reads the policy files of `dir` (as the directory source reads them) and bundles them. */
export async function bundlePolicyFolder(dir: string): Promise<BundleResult> {
  const source = directorySource({ uri: `file://${dir}`, path: dir });
  const signal = AbortSignal.timeout(DEFAULT_LOAD_LIMITS.timeoutMs);
  const entries = await source.list({ signal, maxEntries: DEFAULT_LOAD_LIMITS.maxDocuments });
  const files: { name: string; text: string }[] = [];
  for (const entry of entries) {
    const read = await source.fetch(entry, { signal, maxBytes: DEFAULT_LOAD_LIMITS.maxDocumentBytes });
    if (read.status === 'fetched') files.push({ name: entry.name, text: read.text });
  }
  return bundlePolicies(files);
}

/** `bundle-folder DIR OUT`: 0 and the bundle written, or 1 and the problems on stderr. */
export async function main(args: readonly string[], stderr: (text: string) => void): Promise<number> {
  if (args.length !== 2) {
    stderr('usage: bundle-folder POLICIES_DIR OUTPUT.json\n');
    return 2;
  }
  const [dir, out] = args;
  let result: BundleResult;
  try {
    result = await bundlePolicyFolder(dir);
  } catch (err) {
    stderr(`cannot bundle ${dir}: ${(err as Error).message}\n`);
    return 1;
  }
  if (!result.ok) {
    stderr(`invalid bundled policies in ${dir}:\n${formatBundleProblems(result.problems)}\n`);
    return 1;
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(result.bundle) + '\n');
  return 0;
}

// Run as a script only: bundled into a server or CLI, `import.meta.url` is that bundle's own file.
if (process.argv[1] && /bundle-folder\.[cm]?[jt]s$/.test(process.argv[1]) && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2), (t) => process.stderr.write(t));
}
