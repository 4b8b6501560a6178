import type { PolicySetProvider } from '../policyset/index.js';

/** How a caller's secret is checked (SecretVerifier provides it). */
export interface SecretCheck {
  verify(presented: string | undefined): Promise<boolean>;
}

/** What the multi-cluster routes need of a cluster (ClusterRegistry provides it; server/ mounts the routes). */
export interface ClusterRoutesLookup {
  get(name: string): { verifier: SecretCheck; provider: PolicySetProvider } | undefined;
}
