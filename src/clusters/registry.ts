/**
 * The clusters in force: for each, its secret verifier and its own refresher (own sources, own policy
 * set, own last good set), so one cluster's unreadable source never touches another's set. Core: the
 * platform passes the source constructors it has (nodeSourceResolvers, workerSourceResolvers).
 */
import type { Logger } from '../observe/index.js';
import type { PolicySetProvider } from '../policyset/index.js';
import { PolicySetRefresher, resolveSources, type LoadLimits, type RefresherOptions, type RefreshResult, type SourceResolvers } from '../sources/index.js';
import type { ClusterRoutesLookup } from './lookup.js';
import { ClusterConfigError, DEFAULT_REFRESH_SECONDS, type ClusterConfig } from './config.js';
import { SecretVerifier } from './secrets.js';

export interface Cluster {
  readonly name: string;
  readonly verifier: SecretVerifier;
  readonly refresher: PolicySetRefresher;
  readonly provider: PolicySetProvider;
}

export interface RegistryOptions {
  resolvers: SourceResolvers;
  /** The platform's name in "not available on ..." errors. */
  platform?: string;
  logger?: Logger;
  /** Used by clusters without their own refreshSeconds (default 60). */
  defaultRefreshSeconds?: number;
  debounceMs?: number;
  /** See RefresherOptions.settleMs. */
  settleMs?: number;
  limits?: Partial<LoadLimits>;
  trustListedVersions?: boolean;
  /** How documents become a set (default buildPolicySet). */
  build?: RefresherOptions['build'];
  /** Work before a new set is applied (RefresherOptions.beforeApply). */
  beforeApply?: RefresherOptions['beforeApply'];
}

export class ClusterRegistry implements ClusterRoutesLookup {
  private readonly byName: ReadonlyMap<string, Cluster>;

  private constructor(clusters: readonly Cluster[]) {
    this.byName = new Map(clusters.map((c) => [c.name, c]));
  }

  /** Builds every cluster's verifier and sources; throws ClusterConfigError listing every problem. */
  static create(configs: readonly ClusterConfig[], options: RegistryOptions): ClusterRegistry {
    const problems: string[] = [];
    const clusters: Cluster[] = [];
    for (const config of configs) {
      let verifier: SecretVerifier;
      let refresher: PolicySetRefresher;
      try {
        verifier = new SecretVerifier(config.secretHashes);
        const sources = resolveSources(config.sources, options.resolvers, options.platform);
        refresher = new PolicySetRefresher({
          name: config.name,
          sources,
          intervalMs: (config.refreshSeconds ?? options.defaultRefreshSeconds ?? DEFAULT_REFRESH_SECONDS) * 1000,
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
          ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.trustListedVersions !== undefined ? { trustListedVersions: options.trustListedVersions } : {}),
          ...(options.build ? { build: options.build } : {}),
          ...(options.beforeApply ? { beforeApply: options.beforeApply } : {}),
        });
      } catch (err) {
        problems.push(`cluster ${config.name}: ${(err as Error).message}`);
        continue;
      }
      clusters.push({ name: config.name, verifier, refresher, provider: refresher.provider });
    }
    if (problems.length > 0) throw new ClusterConfigError(problems);
    return new ClusterRegistry(clusters);
  }

  get(name: string): Cluster | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  refreshers(): PolicySetRefresher[] {
    return [...this.byName.values()].map((c) => c.refresher);
  }

  /** First load of every cluster, side by side; one cluster's failure is only its own. */
  async refreshAll(): Promise<Map<string, RefreshResult>> {
    const clusters = [...this.byName.values()];
    const results = await Promise.all(clusters.map((c) => c.refresher.refresh()));
    return new Map(clusters.map((c, i) => [c.name, results[i]]));
  }

  stop(): void {
    for (const c of this.byName.values()) c.refresher.stop();
  }
}
