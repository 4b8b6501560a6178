/**
 * Where the review worker's script is. Built: `worker.js` beside the server bundle (dist/node/main.js and
 * dist/node/worker.js, scripts/build.mjs). From source (tests, tsx): Node 20 does not carry a TypeScript
 * loader into worker threads, so src/adapters/pool/worker.ts is bundled once with esbuild (a development
 * dependency, present wherever the sources are) into a temporary file.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerEntry {
  url: URL;
}

export const WORKER_BUNDLE_NAME = 'worker.js';

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

let fromSource: Promise<WorkerEntry> | undefined;

function sourceEntry(): Promise<WorkerEntry> {
  fromSource ??= (async () => {
    // A variable specifier: the server bundle never contains esbuild (this path runs only from source).
    const esbuild = 'esbuild';
    const { build } = (await import(esbuild)) as { build: (options: object) => Promise<unknown> };
    const outfile = join(tmpdir(), `amender-review-worker-${process.pid}-${Date.now()}.mjs`);
    await build({
      entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
      banner: { js: "import { createRequire as __amenderCreateRequire } from 'node:module';\nconst require = __amenderCreateRequire(import.meta.url);" },
    });
    process.once('exit', () => {
      try {
        unlinkSync(outfile);
      } catch {
        // already gone
      }
    });
    return { url: pathToFileURL(outfile) };
  })();
  return fromSource;
}
