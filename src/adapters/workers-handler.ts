/**
 * The Worker around the app: its `fetch` handler. Settings come from `env` (vars and secrets, see
 * serverless-config.ts) and policies from the bundled set and R2 bucket bindings (`r2://BINDING/prefix`).
 * Nothing runs between requests in a Worker, so the sets are loaded on the first request of an isolate
 * and refreshed when a request finds them older than their interval, in the background of that request
 * (`ctx.waitUntil`) while it is answered from the set in force. The runtime is built once per isolate.
 */
import { jsonLineLogger, statusBody } from '../server/index.js';
import { workerSourceResolvers, type PolicyBundle } from '../sources/index.js';
import { withoutBasePath } from './base-path.js';
import { readServerlessConfig, unknownServerlessVariables } from './serverless-config.js';
import { apiServerLeftSince, createServerlessRuntime, type ServerlessRuntime } from './serverless-runtime.js';
import { drainingRequest } from './worker-body.js';

/** The part of the Workers ExecutionContext used here. */
export interface WorkerContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

export interface WorkerHandler {
  fetch(request: Request, env: Record<string, unknown>, ctx: WorkerContextLike): Promise<Response>;
}

/**
 * MiB of request bodies an isolate holds at once unless AMENDER_BODY_BUDGET_MB says otherwise. An isolate
 * serves many requests at once in 128 MB, and a review of a 6 MiB object takes some 40 MB of heap while
 * it is evaluated: a burst of large reviews read side by side would pass the isolate's limit, which ends
 * every request in it. Eight lets two reviews of 4 MiB (or one of up to AMENDER_MAX_BODY_BYTES, alone) be
 * read at once, and thousands of ordinary ones.
 */
export const WORKERS_BODY_BUDGET_MB = 8;

/** The Worker of a build: settings from `env`, the bundled set and the R2 bindings of `env`. */
export function createWorkerHandler(bundle: PolicyBundle | undefined): WorkerHandler {
  return serveWorker((env) => {
    const config = readServerlessConfig(env);
    const logger = jsonLineLogger((line) => console.log(line.trimEnd()), { minLevel: config.logLevel });
    // Once per isolate, as the Node server and Lambda log them at start.
    for (const warning of unknownServerlessVariables(env)) logger({ level: 'warn', msg: 'unknown setting', warning });
    const bodyBudgetBytes = (config.bodyBudgetMb ?? WORKERS_BODY_BUDGET_MB) * 2 ** 20;
    const runtime = createServerlessRuntime({ config, resolvers: workerSourceResolvers(env, bundle), platform: 'Cloudflare Workers', logger, bodyBudgetBytes });
    return { runtime, basePath: config.basePath };
  });
}

/** A runtime, with the path prefix (AMENDER_BASE_PATH) the Worker's route adds to the paths it is handed. */
export interface RoutedRuntime {
  runtime: ServerlessRuntime;
  basePath?: string;
}

/**
 * How a Worker drives its runtime: built once per isolate from the first request's `env` (a bad
 * configuration answers every request 500 with its message), loaded before a request is answered, due
 * refreshes handed to `ctx.waitUntil`, and the rest of a body the app left unread read before its answer
 * is returned (worker-body.ts).
 */
export function serveWorker(runtimeFor: (env: Record<string, unknown>) => RoutedRuntime): WorkerHandler {
  let built: RoutedRuntime | Error | undefined;

  const build = (env: Record<string, unknown>): RoutedRuntime | Error => {
    try {
      return runtimeFor(env);
    } catch (err) {
      console.error(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'invalid configuration', error: (err as Error).message }));
      return err as Error;
    }
  };

  return {
    async fetch(given, env, ctx) {
      const arrivedAt = Date.now();
      built ??= build(env);
      // What is wrong is logged ('invalid configuration'): the reply, which any caller sees, does not quote the settings.
      if (built instanceof Error) return Response.json(statusBody(500, 'amender is misconfigured: its settings are invalid (the Worker\'s log says which)'), { status: 500 });
      const { runtime, basePath } = built;
      const request = withoutBasePath(given, basePath);
      // A first load may outlast the wait (a slow store, or the API server's timeout coming first): it goes
      // on after this request is answered.
      const waitedMs = await runtime.ensureLoaded(request, () => apiServerLeftSince(request, arrivedAt), (load) => ctx.waitUntil(load));
      const due = runtime.refreshDue();
      if (due) ctx.waitUntil(due);
      const served = drainingRequest(request, runtime.amender.limits.bodyTimeoutMs);
      const response = await runtime.fetch(served.request, waitedMs > 0 ? { waitedMs } : undefined);
      await served.drain();
      return response;
    },
  };
}
