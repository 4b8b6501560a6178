import type { PolicySetProvider } from '../policyset/index.js';
import { CallbackCounter, CallbackGauge, ChildTable, Counter, Histogram, Registry, type CounterChild, type HistogramChild } from '../observe/index.js';
import { createPolicyMetrics, type PolicyMetrics } from './policy-metrics.js';

/** The compiled-CEL-program cache figures (src/cel `programCacheStats`). */
export interface CelCacheStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
  evictions: number;
}

/** Seconds; admission reviews take sub-millisecond to a few seconds (the API server waits at most 30 s). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** The figures one app exposes on /metrics. */
export interface AppMetrics {
  registry: Registry;
  reviews: Counter;
  reviewSeconds: Histogram;
  httpRequests: Counter;
  /** Per policy and Kyverno rule: outcomes and durations. */
  policies: PolicyMetrics;
  /** One HTTP request answered (amender_http_requests_total), through series resolved once. */
  countRequest(route: string, status: number): void;
  /** One review answered on a mutate route: its outcome and its time (cluster undefined for `/mutate`). */
  countReview(outcome: string, cluster: string | undefined, seconds: number): void;
}

export function createAppMetrics(policies: PolicySetProvider, celCache: () => CelCacheStats): AppMetrics {
  const registry = new Registry();
  const reviews = registry.register(new Counter('amender_reviews_total', 'Admission reviews answered on a mutate route, by outcome (and cluster, on the /clusters/ routes).'));
  const reviewSeconds = registry.register(
    new Histogram('amender_review_duration_seconds', 'Time from receiving a review request to its answer.', LATENCY_BUCKETS),
  );
  const httpRequests = registry.register(new Counter('amender_http_requests_total', 'HTTP requests, by route and status code.'));
  registry.register(
    new CallbackGauge('amender_policyset_loaded', '1 when a policy set is loaded and serving, else 0.', () => [[{}, policies().set ? 1 : 0]]),
  );
  registry.register(
    new CallbackGauge('amender_policyset_loaded_timestamp_seconds', 'When the policy set in force was loaded (Unix time).', () => {
      const at = policies().loadedAt;
      return at ? [[{}, at.getTime() / 1000]] : [];
    }),
  );
  registry.register(
    new CallbackGauge('amender_policyset_objects', 'Objects in the policy set in force, by kind of count.', () => {
      const set = policies().set;
      if (!set) return [];
      return Object.entries(set.counts as unknown as Record<string, unknown>)
        .filter((e): e is [string, number] => typeof e[1] === 'number' && e[0] !== 'problems')
        .map(([kind, n]) => [{ kind }, n] as [Record<string, string>, number]);
    }),
  );
  registry.register(
    new CallbackGauge('amender_policyset_problems', 'Problems found loading the policy set in force, by effect (ignored or kept).', () => {
      const set = policies().set;
      if (!set) return [];
      const byEffect = { ignored: 0, kept: 0 };
      for (const p of set.problems) byEffect[p.effect]++;
      return Object.entries(byEffect).map(([effect, n]) => [{ effect }, n] as [Record<string, string>, number]);
    }),
  );
  registry.register(
    new CallbackGauge('amender_policyset_source_errors', 'Errors of the policy source on its last load (the last good set stays in force).', () => [
      [{}, policies().sourceErrors.length],
    ]),
  );
  registry.register(new CallbackCounter('amender_cel_program_cache_hits_total', 'CEL compilations answered from the program cache.', () => [[{}, celCache().hits]]));
  registry.register(new CallbackCounter('amender_cel_program_cache_misses_total', 'CEL expressions compiled (not in the program cache).', () => [[{}, celCache().misses]]));
  registry.register(new CallbackCounter('amender_cel_program_cache_evictions_total', 'Compiled CEL programs evicted from the cache.', () => [[{}, celCache().evictions]]));
  registry.register(new CallbackGauge('amender_cel_program_cache_entries', 'Compiled CEL programs held in the cache.', () => [[{}, celCache().size]]));
  registry.register(new CallbackGauge('amender_cel_program_cache_capacity', 'Most compiled CEL programs the cache holds.', () => [[{}, celCache().capacity]]));
  const policyMetrics = createPolicyMetrics(registry);
  // Every request counts in these: their series are resolved once, not rebuilt as label text per request.
  const requestSeries = new ChildTable<CounterChild>(['route', 'code'], (labels) => httpRequests.child(labels));
  const reviewSeries = new ChildTable<CounterChild>(['outcome'], (labels) => reviews.child(labels));
  const clusterReviewSeries = new ChildTable<CounterChild>(['outcome', 'cluster'], (labels) => reviews.child(labels));
  const clusterSeconds = new ChildTable<HistogramChild>(['cluster'], (labels) => reviewSeconds.child(labels));
  let defaultSeconds: HistogramChild | undefined;
  return {
    registry,
    reviews,
    reviewSeconds,
    httpRequests,
    policies: policyMetrics,
    countRequest: (route, status) => requestSeries.get(route, status).inc(),
    countReview(outcome, cluster, seconds) {
      if (cluster === undefined) {
        reviewSeries.get(outcome).inc();
        (defaultSeconds ??= reviewSeconds.child()).observe(seconds);
      } else {
        clusterReviewSeries.get(outcome, cluster).inc();
        clusterSeconds.get(cluster).observe(seconds);
      }
    },
  };
}
