/**
 * Where the review worker's script is. Built: `worker.js` beside the server bundle (dist/node/main.js and
 * dist/node/worker.js, scripts/build.mjs). From source (tsx, the benchmarks' loader): src/adapters/pool/
 * worker.ts, loaded with the loader the process runs under, or tsx when it has none.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface WorkerEntry {
  url: URL;
  /** Node options of the worker (a TypeScript loader when running from source). */
  execArgv?: readonly string[];
}

export const WORKER_BUNDLE_NAME = 'worker.js';

/**
 * The worker script that goes with this server: beside `mainUrl` (pass `import.meta.url` of the server's
 * entry) when bundled; beside this module when running from source.
 */
export function workerEntryBeside(mainUrl: string, execArgv: readonly string[] = process.execArgv): WorkerEntry {
  if (/\.[cm]?ts$/.test(new URL(import.meta.url).pathname)) {
    const hasLoader = execArgv.some((a) => /^--(import|loader|experimental-loader)\b/.test(a));
    return { url: new URL('./worker.ts', import.meta.url), execArgv: hasLoader ? execArgv : [...execArgv, '--import', 'tsx'] };
  }
  const url = new URL(`./${WORKER_BUNDLE_NAME}`, mainUrl);
  if (!existsSync(fileURLToPath(url))) throw new Error(`the review worker bundle ${fileURLToPath(url)} is missing (scripts/build.mjs builds it beside main.js)`);
  return { url };
}
