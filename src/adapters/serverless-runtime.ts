/**
 * What the serverless adapters (Lambda, Workers) share: the app with its default policy set and its
 * clusters, kept up to date without timers. Neither platform keeps a timer running between requests (a
 * Lambda environment is frozen, a Worker's isolate runs code only for a request), so sets are refreshed
 * from requests: `ensureLoaded()` before a request is answered (the first load, or a retry while no set
 * has ever loaded), `refreshDue()` for sets older than their interval (run beside the request: Workers
 * hand it to `ctx.waitUntil`, Lambda waits for it a bounded time). A request that finds a set's refresh
 * in flight waits for that one (PolicySetRefresher.current), or for a due refresh leaves it be: none
 * starts a second. Core-safe: no `node:*`; the platform passes the source constructors it has.
 */
import { createPolicySets, type PolicySetsOptions } from '../runtime/index.js';
import { BodyBudget, createApp, type AmenderApp, type Logger } from '../server/index.js';
import { registerSourceMetrics, type PolicySetRefresher, type RefreshResult, type SourceResolvers } from '../sources/index.js';
import type { ServerlessConfig } from './serverless-config.js';

export interface ServerlessRuntime {
  readonly amender: AmenderApp;
  /** The app's fetch handler. */
  fetch(request: Request): Promise<Response>;
  /**
   * Loads every set that has no set in force yet (first request; after a failed first load, again at most
   * every few seconds, so requests to a set whose store is down are answered 503 at once meanwhile).
   */
  ensureLoaded(): Promise<void>;
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

/** A set that never loaded is tried again at most this often (its store may be down: don't hammer it). */
const RETRY_UNLOADED_MS = 5000;

/** The load to wait for when a set has none in force: the one in flight, a new one, or none (tried just now). */
function load(refresher: PolicySetRefresher, now: number): Promise<RefreshResult> | undefined {
  const running = refresher.current();
  if (running) return running;
  const last = refresher.stats().lastAttemptAt?.getTime();
  if (last !== undefined && now - last < RETRY_UNLOADED_MS) return undefined;
  return refresher.refresh();
}

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
    clusters: sets.clusterRoutes,
    limits: config.limits,
    logger,
    ...(options.bodyBudgetBytes !== undefined ? { bodyBudget: new BodyBudget(options.bodyBudgetBytes) } : {}),
  });
  const all = sets.refreshers();
  registerSourceMetrics(amender.metrics.registry, () => all);

  return {
    amender,
    fetch: async (request) => amender.app.fetch(request),
    async ensureLoaded() {
      const now = Date.now();
      const loads = all.filter((r) => r.provider().set === undefined).map((r) => load(r, now)).filter((p) => p !== undefined);
      if (loads.length > 0) await Promise.all(loads);
    },
    refreshDue() {
      const started = all.map((r) => r.refreshIfDue()).filter((p): p is Promise<RefreshResult> => p !== undefined);
      return started.length > 0 ? Promise.all(started).then(() => undefined) : undefined;
    },
    refreshers: () => [...all],
  };
}
