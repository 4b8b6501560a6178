/**
 * One builder of the policy sets a deployment serves, for every platform (Node server, Lambda, Workers):
 * the default set's refresher (`POST /mutate`) and the cluster registry with each cluster's refresher
 * (`/clusters/{cluster}/...`), from the settings and the source constructors the platform has. How the
 * refreshes are driven (timers and watches on Node, requests on Lambda and Workers) is the platform's.
 */
import { ClusterConfigError, ClusterRegistry, type ClusterConfig } from '../clusters/index.js';
import type { Logger } from '../server/index.js';
import { PolicySetRefresher, resolveSources, SourceUriError, type RefresherOptions, type SourceResolvers } from '../sources/index.js';
import { SettingsError } from '../settings/index.js';

export interface PolicySetsOptions {
  policySources: readonly string[];
  refreshSeconds: number;
  clusters: readonly ClusterConfig[];
  /** The source constructors of the platform (nodeSourceResolvers, workerSourceResolvers, ...). */
  resolvers: SourceResolvers;
  /** The platform's name in "not available on ..." messages. */
  platform: string;
  logger?: Logger;
  /** How documents become a set (default buildPolicySet). */
  build?: RefresherOptions['build'];
  /** Work before a new set is applied (RefresherOptions.beforeApply: the Node server's encoding for its workers). */
  beforeApply?: RefresherOptions['beforeApply'];
}

export interface PolicySets {
  /** The default set's refresher. */
  readonly default: PolicySetRefresher;
  /** Every cluster's verifier and refresher. */
  readonly clusters: ClusterRegistry;
  /** The default set's refresher, then each cluster's. */
  refreshers(): PolicySetRefresher[];
}

/** Every set of the deployment; throws SettingsError listing every source that cannot be served here. */
export function createPolicySets(options: PolicySetsOptions): PolicySets {
  const { logger, build, beforeApply } = options;
  const extra = { ...(logger ? { logger } : {}), ...(build ? { build } : {}), ...(beforeApply ? { beforeApply } : {}) };
  const problems: string[] = [];
  let defaultSet: PolicySetRefresher | undefined;
  try {
    const sources = resolveSources(options.policySources, options.resolvers, options.platform);
    defaultSet = new PolicySetRefresher({ name: 'default', sources, intervalMs: options.refreshSeconds * 1000, ...extra });
  } catch (err) {
    if (!(err instanceof SourceUriError)) throw err;
    problems.push(`AMENDER_POLICY_SOURCES: ${err.message}`);
  }
  let clusters: ClusterRegistry | undefined;
  try {
    clusters = ClusterRegistry.create(options.clusters, { resolvers: options.resolvers, platform: options.platform, defaultRefreshSeconds: options.refreshSeconds, ...extra });
  } catch (err) {
    if (!(err instanceof ClusterConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0 || !defaultSet || !clusters) throw new SettingsError(problems);
  const all = [defaultSet, ...clusters.refreshers()];
  return {
    default: defaultSet,
    clusters,
    refreshers: () => [...all],
  };
}
