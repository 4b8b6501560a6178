/**
 * What the serverless adapters (Lambda, Workers) share: the app with its default policy set and its
 * clusters, kept up to date without timers. Neither platform keeps a timer running between requests (a
 * Lambda environment is frozen, a Worker's isolate runs code only for a request), so sets are refreshed
 * from requests: `ensureLoaded(request)` before a request is answered (the first load of the set the request
 * reviews with, or a retry while it has never loaded; a bounded wait, so that a store that hangs costs
 * that set's reviews a 503, and nothing else anything), `refreshDue()` for sets older than their interval (run beside the request: Workers
 * hand it to `ctx.waitUntil`, Lambda waits for it a bounded time). A request that finds a set's refresh
 * in flight waits for that one (PolicySetRefresher.current), or for a due refresh leaves it be: none
 * starts a second. Core-safe: no `node:*`; the platform passes the source constructors it has.
 */
import { createPolicySets, type PolicySetsOptions } from '../runtime/index.js';
import { apiServerLeftMs, apiServerTimeoutMs, BodyBudget, createApp, type AmenderApp, type Logger, type RequestHints } from '../server/index.js';
import { registerSourceMetrics, type PolicySetRefresher, type RefreshResult, type SourceResolvers } from '../sources/index.js';
import type { ServerlessConfig } from './serverless-config.js';

export interface ServerlessRuntime {
  readonly amender: AmenderApp;
  /** The app's fetch handler; `hints` tell it what happened to the request before (RequestHints). */
  fetch(request: Request, hints?: RequestHints): Promise<Response>;
  /**
   * Loads the sets that have none in force yet, waiting at most FIRST_LOAD_WAIT_MS (less what a load in
   * flight has taken already): with a request, only the set it reviews with (a POST to `/mutate`, or to a
   * cluster's route) or whose readiness it asks (`/readyz`, `/clusters/{cluster}/readyz`); without, every
   * set (the start). A set whose first load failed is tried again at most
   * every few seconds after that load ended, so requests to a set whose store is down are answered 503 at
   * once meanwhile. `maxWaitMs()` bounds the wait further (what is left of the API server's `?timeout=`;
   * Lambda: the time the invocation has left), read only when there is a load to wait for.
   * Resolves to the milliseconds waited (for the request's RequestHints.waitedMs). `keepAlive` is given
   * each load this call starts: a Worker hands it to `ctx.waitUntil`, since workerd cancels what a request
   * left running once its answer is sent, and a load cut so would never end (every later request of the
   * isolate answered 503, the set never loaded).
   */
  ensureLoaded(request?: { method: string; url: string }, maxWaitMs?: () => number, keepAlive?: (load: Promise<unknown>) => void): Promise<number>;
  /** Starts the refreshes whose interval has passed; undefined when none was due. */
  refreshDue(): Promise<void> | undefined;
  /** The default set's refresher, then each cluster's. */
  refreshers(): PolicySetRefresher[];
}

export interface ServerlessRuntimeOptions {
  config: ServerlessConfig;
  resolvers: SourceResolvers;
  /** The platform's name in "not available on ..." messages. */
  platform: string;
  logger: Logger;
  /** How documents become a set (default buildPolicySet). */
  build?: PolicySetsOptions['build'];
  /** Bytes of request bodies held at once (src/server/body-budget.ts); none: no bound beyond each body's. */
  bodyBudgetBytes?: number;
}

/** A set that never loaded is tried again at most this long after its last load ended (its store may be down: don't hammer it). */
const RETRY_UNLOADED_MS = 5000;

/**
 * The longest a request waits for its set's first load: well inside the API server's webhook timeout
 * (10 s by default) and Lambda's 10 s init, so that a store that hangs (its load bounded at 30 s only)
 * answers that set's reviews 503 instead of their timing out.
 */
export const FIRST_LOAD_WAIT_MS = 5000;

/** A cluster route's path, and its cluster's name (as sent: percent-encoded). */
const CLUSTER_PATH = /^\/*clusters\/([^/]+)/i;
/** The readiness routes: `/readyz` (the default set) and `/clusters/{cluster}/readyz`. */
const READYZ_PATH = /^\/*(?:clusters\/[^/]+\/)?readyz$/i;

/** Builds the app and its sets; throws SettingsError when a source URI cannot be served on this platform. */
export function createServerlessRuntime(options: ServerlessRuntimeOptions): ServerlessRuntime {
  const { config, logger } = options;
  const sets = createPolicySets({
    policySources: config.policySources,
    refreshSeconds: config.refreshSeconds,
    clusters: config.clusters,
    resolvers: options.resolvers,
    platform: options.platform,
    logger,
    ...(options.build ? { build: options.build } : {}),
  });
  const amender = createApp({
    policies: sets.default.provider,
    // Mounted without clusters too, as on the Node server: `/clusters/x/...` answers "no cluster named x".
    clusters: sets.clusters,
    limits: config.limits,
    logger,
    ...(options.bodyBudgetBytes !== undefined ? { bodyBudget: new BodyBudget(options.bodyBudgetBytes) } : {}),
  });
  const all = sets.refreshers();
  registerSourceMetrics(amender.metrics.registry, () => all);
  const loads = new FirstLoads();

  /**
   * The set a request reviews with, or whose readiness it asks (a Worker has no start to load its sets at:
   * its /readyz would answer 503 "no policy set is loaded yet" until some review came); none for /healthz
   * and /metrics, or a path no set serves.
   */
  const setsFor = (request: { method: string; url: string }): PolicySetRefresher[] => {
    const probe = request.method === 'GET' || request.method === 'HEAD';
    if (request.method !== 'POST' && !probe) return [];
    const path = new URL(request.url).pathname;
    if (probe && !READYZ_PATH.test(path)) return [];
    const cluster = CLUSTER_PATH.exec(path);
    if (!cluster) return [sets.default];
    let name: string;
    try {
      name = decodeURIComponent(cluster[1]);
    } catch {
      return [];
    }
    const found = sets.clusters.get(name);
    return found ? [found.refresher] : [];
  };

  return {
    amender,
    fetch: async (request, hints) => amender.app.fetch(request, hints),
    async ensureLoaded(request, maxWaitMs, keepAlive) {
      // Once every set has loaded (nearly every request), nothing to wait for and no URL to read.
      if (all.every((r) => r.provider().set !== undefined)) return 0;
      const needed = request ? setsFor(request) : all;
      const now = Date.now();
      const bound = maxWaitMs?.() ?? Number.POSITIVE_INFINITY;
      const waits: Promise<void>[] = [];
      for (const refresher of needed) {
        if (refresher.provider().set !== undefined) continue;
        const wait = loads.waitFor(refresher, now, bound, keepAlive);
        if (wait) waits.push(wait);
      }
      if (waits.length === 0) return 0;
      await Promise.all(waits);
      return Date.now() - now;
    },
    refreshDue() {
      const started = all.map((r) => r.refreshIfDue()).filter((p): p is Promise<RefreshResult> => p !== undefined);
      return started.length > 0 ? Promise.all(started).then(() => undefined) : undefined;
    },
    refreshers: () => [...all],
  };
}

/** The first loads of the sets, as requests wait for them: each bounded in time, and not retried too soon. */
class FirstLoads {
  /** When each set's last load ended, and the loads whose end is watched. */
  private readonly ended = new Map<PolicySetRefresher, number>();
  private readonly watched = new WeakSet<Promise<unknown>>();

  /**
   * What to wait for, for a set with none in force: the load in flight, or a new one, for what is left of
   * FIRST_LOAD_WAIT_MS since it started; nothing when that has passed or a load ended just now.
   */
  waitFor(refresher: PolicySetRefresher, now: number, maxWaitMs = Number.POSITIVE_INFINITY, keepAlive?: (load: Promise<unknown>) => void): Promise<void> | undefined {
    let running = refresher.current();
    if (!running) {
      const ended = this.ended.get(refresher);
      if (ended !== undefined && now - ended < RETRY_UNLOADED_MS) return undefined;
      running = refresher.refresh();
      keepAlive?.(running);
    }
    if (!this.watched.has(running)) {
      this.watched.add(running);
      const end = () => this.ended.set(refresher, Date.now());
      void running.then(end, end);
    }
    // The attempt in flight started when the refresher says (a refresh a request started, or the start's).
    const startedAt = refresher.stats().lastAttemptAt?.getTime() ?? now;
    const left = Math.min(FIRST_LOAD_WAIT_MS - (now - startedAt), maxWaitMs);
    return left > 0 ? waitAtMost(running, left) : undefined;
  }
}

/** Resolves when `promise` settles or `ms` have passed, whichever is first. */
export function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const settled = () => {
      clearTimeout(timer);
      resolve();
    };
    void promise.then(settled, settled);
  });
}

/**
 * Milliseconds left, the request having arrived at `arrivedAt` (Date.now()), before its reply must be on
 * its way for the API server to read it (api-timeout.ts apiServerLeftMs); infinite without `?timeout=`.
 */
export function apiServerLeftSince(request: { url: string }, arrivedAt: number): number {
  return apiServerLeftMs(apiServerTimeoutMs(new URL(request.url).searchParams.get('timeout') ?? undefined), Date.now() - arrivedAt);
}
