/**
 * Many clusters from one service: configuration, secrets, and the registry of per-cluster policy sets.
 * Threat model: README.md, "Many clusters, and who may call". Core (Web Crypto only).
 *
 *   readClustersConfig(env, fileClusters?) → ClusterConfig[]        (throws ClusterConfigError)
 *   ClusterRegistry.create(configs, { resolvers, logger?, defaultRefreshSeconds?, ... })
 *     .get(name) / .names / .refreshAll() / .stop() / .refreshers()
 *   hashSecret(secret) → 'sha256:<hex>';  new SecretVerifier(hashes).verify(presented)
 */
export {
  CLUSTER_ENVIRONMENT_VARIABLES,
  isClusterName,
  CLUSTERS_VARIABLE,
  ClusterConfigError,
  clusterVariables,
  DEFAULT_REFRESH_SECONDS,
  MAX_REFRESH_SECONDS,
  readClustersConfig,
  REFRESH_VARIABLE,
  type ClusterConfig,
} from './config.js';
export { constantTimeEqual, hashSecret, isSecretHash, MAX_SECRET_LENGTH, SECRET_LIKE_LENGTH, SecretHashError, SecretVerifier } from './secrets.js';
export { ClusterRegistry, type Cluster, type RegistryOptions } from './registry.js';
export type { ClusterRoutesLookup, SecretCheck } from './lookup.js';
