/** Runs the built Workers bundle in workerd through miniflare, with an R2 bucket and its logs captured. */
import { Miniflare } from 'miniflare';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { WORKERS_BUNDLE } from './helpers.js';

export interface RunningWorker {
  mf: Miniflare;
  /** The Worker's origin on loopback. */
  origin: string;
  /** The R2 bucket bound as POLICIES, seen from the test. */
  bucket: { put(key: string, value: string): Promise<unknown>; delete(key: string): Promise<void> };
  /** JSON log lines the Worker printed. */
  logs: Record<string, unknown>[];
  /** Everything else workerd printed (warnings, errors). */
  other: string[];
  dispose(): Promise<void>;
}

/**
 * A second Worker bound to the bundle's Worker as a service: `binding` is its name in the bundle's `env`,
 * `script` an ES module whose `entrypoint` class (a WorkerEntrypoint) answers the calls made through it.
 */
export interface ServiceWorker {
  binding: string;
  entrypoint: string;
  script: string;
}

/** `vars` as wrangler binds `[vars]`: a string as text, anything else (an unquoted TOML number) as its JSON value. */
export async function startWorker(vars: Record<string, string | number | boolean | unknown[]>, objects: Record<string, string> = {}, services: ServiceWorker[] = []): Promise<RunningWorker> {
  const logs: Record<string, unknown>[] = [];
  const other: string[] = [];
  const collect = (stream: Readable) =>
    createInterface({ input: stream }).on('line', (line) => {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        if (line.trim() !== '') other.push(line);
      }
    });
  const bundle = {
    name: 'amender',
    // The module given whole: a bare script path makes miniflare parse it first to find its imports.
    modules: [{ type: 'ESModule' as const, path: WORKERS_BUNDLE, contents: readFileSync(WORKERS_BUNDLE, 'utf8') }],
    modulesRoot: dirname(WORKERS_BUNDLE),
    compatibilityDate: '2025-01-01',
    r2Buckets: ['POLICIES'],
    bindings: vars,
    serviceBindings: Object.fromEntries(services.map((s, i) => [s.binding, { name: `service-${i}`, entrypoint: s.entrypoint }])),
  };
  const serviceWorkers = services.map((s, i) => ({ name: `service-${i}`, modules: true, script: s.script, compatibilityDate: '2025-01-01' }));
  const mf = new Miniflare({
    // The first Worker is the one the origin serves.
    workers: [bundle, ...serviceWorkers],
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      collect(stdout);
      collect(stderr);
    },
  });
  const url = await mf.ready;
  const bucket = (await mf.getR2Bucket('POLICIES', 'amender')) as unknown as RunningWorker['bucket'];
  for (const [key, text] of Object.entries(objects)) await bucket.put(key, text);
  return { mf, origin: url.origin, bucket, logs, other, dispose: () => mf.dispose() };
}
