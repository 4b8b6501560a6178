/**
 * The policy sets of the Node server: where each source URI is read from on Node, and how refresh is
 * driven here (timers and folder watches; every set read now on start and SIGHUP). The sets themselves
 * are built by the runtime's builder, as on Lambda and Workers.
 *
 *   nodePolicyResolvers(env) → SourceResolvers
 *       bundled      the set embedded by the build when there is one, else the repository's `policies/`
 *                    folder beside the bundle (a checkout, `npm start`, the container image)
 *       file://DIR   a folder (walked: hidden entries and `tests/` folders skipped) or one file; a plain
 *                    path means the same
 *       s3://b/p     every .yaml/.yml/.json below the prefix, through one S3 client made from `env`
 *   createNodePolicySets({ policySources, refreshSeconds, clusters, env, logger }) → NodePolicySets
 *       .default, .clusters, .refreshers()     see createPolicySets (src/runtime)
 *       .refreshAll() first load, and SIGHUP; .start() timers and folder watches; .stop() on SIGTERM
 */
import { fileURLToPath } from 'node:url';
import type { ClusterConfig } from '../clusters/index.js';
import { createPolicySets, type PolicySets, type PolicySetsOptions } from '../runtime/index.js';
import type { Logger } from '../server/index.js';
import type { RefreshResult, SourceResolvers } from '../sources/index.js';
import { nodeSourceResolvers } from '../sources/node/index.js';
import { embeddedPolicyBundle } from './serverless-bundle.js';

/** dist/node/main.js and src/adapters/*.ts are both two levels below the repository root. */
const BUNDLED_POLICIES_DIR = fileURLToPath(new URL('../../policies/', import.meta.url));

/** The platform's name in "not available on ..." messages. */
const PLATFORM = 'the Node server';

export function nodePolicyResolvers(env: Readonly<Record<string, string | undefined>>): SourceResolvers {
  const bundle = embeddedPolicyBundle();
  return nodeSourceResolvers({ env, ...(bundle ? { bundle } : { bundledFolder: BUNDLED_POLICIES_DIR }) });
}

export interface NodePolicySetsOptions {
  policySources: readonly string[];
  refreshSeconds: number;
  clusters: readonly ClusterConfig[];
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** Sources by kind; `nodePolicyResolvers(env)` unless told (tests pass an S3 client of their own). */
  resolvers?: SourceResolvers;
  /** Work before a new set is applied (the review pool's encodeAhead). */
  beforeApply?: PolicySetsOptions['beforeApply'];
}

export interface NodePolicySets extends PolicySets {
  /** Reads every set's sources now, side by side; one set's failure is only its own. */
  refreshAll(): Promise<RefreshResult[]>;
  start(): void;
  stop(): void;
}

/** Every set of the server; throws SettingsError (ConfigError) listing every source that cannot be served here. */
export function createNodePolicySets(options: NodePolicySetsOptions): NodePolicySets {
  const sets = createPolicySets({
    policySources: options.policySources,
    refreshSeconds: options.refreshSeconds,
    clusters: options.clusters,
    resolvers: options.resolvers ?? nodePolicyResolvers(options.env),
    platform: PLATFORM,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.beforeApply ? { beforeApply: options.beforeApply } : {}),
  });
  const all = sets.refreshers();
  return {
    ...sets,
    refreshAll: () => Promise.all(all.map((r) => r.refresh())),
    start: () => {
      for (const r of all) r.start();
    },
    stop: () => {
      for (const r of all) r.stop();
    },
  };
}
