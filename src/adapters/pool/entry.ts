/**
 * Where the review worker's script is. Built: `worker-entry.cjs` beside the server bundle
 * (dist/node/main.js and dist/node/worker-entry.cjs, scripts/build.mjs). From source (tests, tsx): Node
 * 20 does not carry a TypeScript loader into worker threads, so src/adapters/pool/worker.ts is bundled
 * with esbuild (a development dependency, present wherever the sources are) into a temporary file.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerEntry {
  url: URL;
}

export const WORKER_BUNDLE_NAME = 'worker-entry.cjs';

/**
 * The worker script that goes with this server: beside `mainUrl` (pass `import.meta.url` of the server's
 * entry) when bundled; built from this module's folder when running from source.
 */
export async function workerEntryBeside(mainUrl: string): Promise<WorkerEntry> {
  if (/\.[cm]?ts$/.test(new URL(import.meta.url).pathname)) return sourceEntry();
  const url = new URL(`./${WORKER_BUNDLE_NAME}`, mainUrl);
  if (!existsSync(fileURLToPath(url))) throw new Error(`the review worker bundle ${fileURLToPath(url)} is missing (scripts/build.mjs builds it beside main.js)`);
  return { url };
}

/** Worker scripts bundled from source in this process, by the source's URL. */
const fromSource = new Map<string, Promise<WorkerEntry>>();

function sourceEntry(): Promise<WorkerEntry> {
  return bundledWorkerEntry(new URL('./worker.ts', import.meta.url));
}

/**
 * A worker script from TypeScript source (this module's worker.ts, or a test's worker with a fault
 * injected), bundled with esbuild. The bundle is named for a hash of its text and kept: every process
 * running the same sources reuses one file, so nothing piles up in the temporary folder when a test runner
 * kills its workers without their `exit` handlers (a per-process file did, 1.4 MB a process). Written
 * under a unique name, then renamed into place, so a process never reads another's half-written file.
 */
export function bundledWorkerEntry(source: URL): Promise<WorkerEntry> {
  let entry = fromSource.get(source.href);
  if (!entry) fromSource.set(source.href, (entry = bundle(source)));
  return entry;
}

async function bundle(source: URL): Promise<WorkerEntry> {
  // Variable specifiers: the server bundle never contains esbuild (this path runs only from source).
  const esbuild = 'esbuild';
  const { build } = (await import(esbuild)) as { build: (options: object) => Promise<{ outputFiles: { contents: Uint8Array }[] }> };
  const { createHash } = await import('node:crypto');
  const result = await build({
    entryPoints: [fileURLToPath(source)],
    write: false,
    outfile: 'worker.mjs',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __amenderCreateRequire } from 'node:module';\nconst require = __amenderCreateRequire(import.meta.url);" },
  });
  const contents = result.outputFiles[0].contents;
  const digest = createHash('sha256').update(contents).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `amender-review-worker-${digest}.mjs`);
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}.${Date.now()}.partial`;
    writeFileSync(partial, contents);
    renameSync(partial, file);
  }
  return { url: pathToFileURL(file) };
}
