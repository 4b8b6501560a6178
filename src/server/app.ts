/**
 * The Hono app: a pure function of its dependencies (policy set provider, clusters, limits, logger,
 * clock), with no platform module, so every adapter (Node, Lambda, Workers) serves the same app through
 * its `fetch`. Routes: `/mutate`, `/healthz`, `/readyz`, `/metrics`, and with `clusters` the
 * `/clusters/{cluster}/...` routes of routes/clusters.ts.
 */
import { Hono } from 'hono';
import { programCacheStats } from '../cel/index.js';
import { createAppMetrics, type AppMetrics, type CelCacheStats } from './app-metrics.js';
import type { AppEnv } from './context.js';
import { resolveLimits, type Limits } from './limits.js';
import { PROMETHEUS_CONTENT_TYPE, silentLogger, type Logger, type LogRecord } from '../observe/index.js';
import { loggedMessage, loggedUid } from './log-fields.js';
import { redactPath, REDACTED, type IsServedCluster } from './redact.js';
import type { PolicySetProvider } from '../policyset/index.js';
import type { ClusterRoutesLookup } from '../clusters/index.js';
import { CLUSTER_ROUTE_SHAPES, mountClusterRoutes } from './routes/clusters.js';
import { onlyMethods } from './routes/methods.js';
import { mutateHandler, type MutateDeps } from './routes/mutate.js';
import { available, healthz, notDraining, readyz } from './routes/probes.js';
import { statusBody } from './status.js';
import { inProcessReviewer, type Reviewer } from './reviewer.js';
import { registerBodyBudgetMetrics, type BodyBudget } from './body-budget.js';
import { SplitRouter } from './router.js';

export interface AppOptions {
  /** The policy set in force for `POST /mutate`, read once per request. */
  policies: PolicySetProvider;
  /**
   * The clusters served on `/clusters/{cluster}/mutate` (a ClusterRegistry from src/clusters). Without
   * it those paths answer 404 like any unknown path.
   */
  clusters?: ClusterRoutesLookup;
  limits?: Partial<Limits>;
  logger?: Logger;
  /** Milliseconds from an arbitrary origin, for latencies (`performance.now` by default). */
  clock?: () => number;
  /** Figures of the compiled-CEL-program cache for /metrics (the process-wide cache by default). */
  celCache?: () => CelCacheStats;
  /**
   * Evaluates a review once its body is read: in-process by default (Lambda, Workers, tests); the Node
   * server passes its worker pool (src/adapters/pool) so a review never holds the event loop.
   */
  reviewer?: Reviewer;
  /**
   * True while the server shuts down: `/readyz` and each cluster's answer 503 so no new work is routed
   * here, while the requests that arrive are still answered.
   */
  draining?: () => boolean;
  /**
   * Why no review can be evaluated now, or undefined: the Node server's worker pool when its workers
   * cannot start. `/readyz` and each cluster's answer 503 with it, so no work is routed to a process that
   * cannot do it (a broken release stops its own rollout).
   */
  unavailable?: () => string | undefined;
  /**
   * Bytes of request bodies held at once (body-budget.ts): the Node server's and each Workers isolate's,
   * which serve many reviews at once in one memory; a Lambda environment takes one request at a time.
   */
  bodyBudget?: BodyBudget;
}

export interface AmenderApp {
  /** The Hono app; `app.fetch` is what adapters serve. */
  app: Hono<AppEnv>;
  metrics: AppMetrics;
  limits: Limits;
  /** What `mutateHandler` needs, for routes added on the returned app. */
  mutateDeps: MutateDeps;
}

export function createApp(options: AppOptions): AmenderApp {
  const limits = resolveLimits(options.limits);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => performance.now());
  const metrics = createAppMetrics(options.policies, options.celCache ?? programCacheStats);
  // The cluster routes (routes/clusters.ts) apart: they would cost every other route its fast router (router.ts).
  const app = new Hono<AppEnv>({ router: new SplitRouter('clusters') });
  const clusters = options.clusters;
  // A path secret never reaches a log or a reply (redact.ts); a served cluster's name may.
  const served: IsServedCluster | undefined = clusters && ((name) => clusters.get(name) !== undefined);
  const shownPath = (path: string) => redactPath(path, served);

  app.use('*', async (c, next) => {
    const started = clock();
    await next();
    const status = c.res.status;
    const routePath = c.req.routePath; // a getter that maps every matched route: read once
    const route = status === 404 && routePath === '/*' ? 'unmatched' : routePath;
    metrics.countRequest(route, status);
    const record: LogRecord = {
      level: status >= 500 ? 'error' : 'info',
      msg: 'request',
      method: c.req.method,
      path: shownPath(c.req.path),
      status,
      durationMs: Math.round((clock() - started) * 1000) / 1000,
    };
    const review = c.get('review');
    if (review) {
      record.uid = loggedUid(review.uid);
      record.outcome = review.outcome;
      if (review.status === 200) record.patchOps = review.patchOps;
      else {
        record.message = loggedMessage(review.body.message);
        if ('error' in review && review.error !== undefined) record.error = String((review.error as Error)?.stack ?? review.error);
      }
    }
    logger(record);
  });

  const mutateDeps: MutateDeps = { limits, metrics, clock, reviewer: options.reviewer ?? inProcessReviewer, logger };
  if (options.bodyBudget) {
    mutateDeps.bodies = options.bodyBudget;
    registerBodyBudgetMetrics(metrics.registry, options.bodyBudget);
  }
  app.post('/mutate', mutateHandler(mutateDeps, options.policies));
  app.all('/mutate', onlyMethods('POST'));
  app.get('/healthz', healthz);
  app.all('/healthz', onlyMethods('GET, HEAD'));
  const draining = options.draining ?? notDraining;
  const serving = { draining, unavailable: options.unavailable ?? available };
  app.get('/readyz', readyz(options.policies, serving));
  app.all('/readyz', onlyMethods('GET, HEAD'));
  // The per-policy series follow the sets in force, also when no review came since one was applied.
  const inForce = (policySet: string) => (policySet === 'default' ? options.policies() : clusters?.get(policySet)?.provider());
  app.get('/metrics', (c) => {
    metrics.policies.follow(inForce);
    return c.body(metrics.registry.render(), 200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
  });
  app.all('/metrics', onlyMethods('GET, HEAD'));
  if (clusters) mountClusterRoutes({ app, mutateDeps, serving }, clusters);

  // The reply may be logged by the caller (the API server logs failed webhook calls): no path secret in it.
  // When part of the path cannot be shown, the message says which routes exist instead.
  const routeShapes = `; ${REDACTED} stands for a part that may be a secret. Routes: POST /mutate, GET /healthz, /readyz, /metrics${clusters ? `, ${CLUSTER_ROUTE_SHAPES}` : ''}`;
  app.notFound((c) => {
    const shown = shownPath(c.req.path);
    return c.json(statusBody(404, `no route for ${c.req.method} ${shown}${shown.includes(REDACTED) ? routeShapes : ''}`), 404);
  });
  app.onError((err, c) => {
    logger({ level: 'error', msg: 'unhandled error', path: shownPath(c.req.path), error: String(err?.stack ?? err) });
    return c.json(statusBody(500, 'internal error'), 500);
  });

  return { app, metrics, limits, mutateDeps };
}
