/**
 * The policy sets of the Node server (and of the CLI, which reads `--policies` the same way): where each
 * source URI is read from on Node, and the default set plus every cluster's, kept up to date.
 *
 *   nodePolicyResolvers(env) → SourceResolvers
 *       bundled      the set embedded by the build when there is one, else the repository's `policies/`
 *                    folder beside the bundle (a checkout, `npm start`, the container image)
 *       file://DIR   a folder (walked: hidden entries and `tests/` folders skipped) or one file; a plain
 *                    path means the same
 *       s3://b/p     every .yaml/.yml/.json below the prefix, through one S3 client made from `env`
 *   createNodePolicySets({ policySources, refreshSeconds, clusters, env, logger }) → NodePolicySets
 *       .default      refresher of the default set (`POST /mutate`)
 *       .clusters     ClusterRegistry (`/clusters/{cluster}/...`), for createApp({ clusters })
 *       .refreshers() every refresher, for registerSourceMetrics
 *       .refreshAll() first load, and SIGHUP; .start() timers and folder watches; .stop() on SIGTERM
 */
import { fileURLToPath } from 'node:url';
import { ClusterConfigError, ClusterRegistry, type ClusterConfig } from '../clusters/index.js';
import { ConfigError } from './node-config.js';
import type { Logger } from '../server/index.js';
import { PolicySetRefresher, resolveSources, SourceUriError, type RefreshResult, type SourceResolvers } from '../sources/index.js';
import { directorySource, nodeSourceResolvers } from '../sources/node/index.js';
import { embeddedPolicyBundle } from './serverless-bundle.js';

/** dist/node/main.js, dist/cli/amender.js and src/adapters/*.ts are all two levels below the repository root. */
export const BUNDLED_POLICIES_DIR = fileURLToPath(new URL('../../policies/', import.meta.url));

/** The platform's name in "not available on ..." messages. */
const PLATFORM = 'the Node server';

export function nodePolicyResolvers(env: Readonly<Record<string, string | undefined>>): SourceResolvers {
  const bundle = embeddedPolicyBundle();
  const resolvers = nodeSourceResolvers({ env, ...(bundle ? { bundle } : {}) });
  return bundle ? resolvers : { ...resolvers, bundled: () => directorySource({ uri: 'bundled', path: BUNDLED_POLICIES_DIR }) };
}

export interface NodePolicySetsOptions {
  policySources: readonly string[];
  refreshSeconds: number;
  clusters: readonly ClusterConfig[];
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** Sources by kind; `nodePolicyResolvers(env)` unless told (tests pass an S3 client of their own). */
  resolvers?: SourceResolvers;
}

export interface NodePolicySets {
  readonly default: PolicySetRefresher;
  readonly clusters: ClusterRegistry;
  refreshers(): PolicySetRefresher[];
  /** Reads every set's sources now, side by side; one set's failure is only its own. */
  refreshAll(): Promise<RefreshResult[]>;
  start(): void;
  stop(): void;
}

/** Every set of the server; throws ConfigError listing every source that cannot be served here. */
export function createNodePolicySets(options: NodePolicySetsOptions): NodePolicySets {
  const resolvers = options.resolvers ?? nodePolicyResolvers(options.env);
  const logger = options.logger;
  const intervalMs = options.refreshSeconds * 1000;
  const problems: string[] = [];
  let defaultSet: PolicySetRefresher | undefined;
  try {
    const sources = resolveSources(options.policySources, resolvers, PLATFORM);
    defaultSet = new PolicySetRefresher({ name: 'default', sources, intervalMs, ...(logger ? { logger } : {}) });
  } catch (err) {
    if (!(err instanceof SourceUriError)) throw err;
    problems.push(`AMENDER_POLICY_SOURCES: ${err.message}`);
  }
  let clusters: ClusterRegistry | undefined;
  try {
    clusters = ClusterRegistry.create(options.clusters, {
      resolvers,
      platform: PLATFORM,
      defaultRefreshSeconds: options.refreshSeconds,
      ...(logger ? { logger } : {}),
    });
  } catch (err) {
    if (!(err instanceof ClusterConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0 || !defaultSet || !clusters) throw new ConfigError(problems);
  const all = [defaultSet, ...clusters.refreshers()];
  return {
    default: defaultSet,
    clusters,
    refreshers: () => [...all],
    refreshAll: () => Promise.all(all.map((r) => r.refresh())),
    start: () => {
      for (const r of all) r.start();
    },
    stop: () => {
      for (const r of all) r.stop();
    },
  };
}
