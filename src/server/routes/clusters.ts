/**
 * The multi-cluster routes, mounted by `createApp({ clusters })` (or on an app already made, by
 * `mountClusterRoutes(amender, clusters)`):
 *
 *   POST /clusters/{cluster}/mutate            Authorization: Bearer <secret>
 *   POST /clusters/{cluster}/{secret}/mutate   the secret as a path segment (percent-encoded if needed)
 *   GET  /clusters/{cluster}/readyz            Authorization: Bearer <secret>; the cluster's /readyz
 *
 * Order of checks: unknown cluster → 404; missing or wrong secret → 401 (with WWW-Authenticate); only then
 * is the body read and the cluster's policy set consulted. Cluster names are not secret (they are in
 * webhook configurations, URLs and metrics), so 404 for an unknown name tells a caller nothing that helps
 * guess a secret, and tells an operator at once that the URL names the wrong cluster. The access log
 * writes the path-secret route as `/clusters/{cluster}/[redacted]/mutate` (`redactPath`, redact.ts).
 */
import type { Context } from 'hono';
import type { AmenderApp } from '../app.js';
import type { AppEnv } from '../context.js';
import { authenticate, bearerToken } from '../auth.js';
import { hasClusterNameShape, mayEchoUnknownName, type IsServedCluster } from '../redact.js';
import type { ClusterRoutesLookup } from '../../clusters/index.js';
import type { PolicySetProvider } from '../../policyset/index.js';
import { statusBody } from '../status.js';
import { onlyMethods } from './methods.js';
import { mutateHandler } from './mutate.js';
import { readyz, type Serving } from './probes.js';

/** The reviewer's name of a cluster's set (`clusters/<name>`: never the default set's name, whatever the cluster's). */
export function clusterSetName(cluster: string): string {
  return `clusters/${cluster}`;
}

/** The routes of a cluster, for a message that cannot show what was sent. */
export const CLUSTER_ROUTE_SHAPES = 'POST /clusters/{cluster}/mutate (Authorization: Bearer <secret>), POST /clusters/{cluster}/{secret}/mutate, GET /clusters/{cluster}/readyz';

/**
 * The 404 message for a cluster segment that names no cluster: the name when it is short and has a
 * cluster name's shape (an operator sees the typo), else nothing of it. A reply may be logged by the API
 * server and never echoes a secret: `alpha%2F<secret>` arrives as `alpha/<secret>`, and a URL that
 * leaves the name out puts the secret in its place (`/clusters/<secret>/mutate`).
 */
function unknownClusterMessage(name: string): string {
  if (mayEchoUnknownName(name)) return `no cluster named ${JSON.stringify(name)} is served here`;
  if (hasClusterNameShape(name)) {
    return `no cluster of that name is served here (a name of ${name.length} characters is not echoed: it may be a secret put in the cluster's place); the cluster routes are ${CLUSTER_ROUTE_SHAPES}`;
  }
  return 'no cluster is served under that path: its cluster segment is not a cluster name (a lowercase DNS label)';
}

type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;

export function mountClusterRoutes(
  { app, mutateDeps, serving }: Pick<AmenderApp, 'app' | 'mutateDeps'> & { serving?: Serving },
  clusters: ClusterRoutesLookup,
): void {
  const served: IsServedCluster = (name) => clusters.get(name) !== undefined;
  /** Resolves the cluster and checks the secret; on success runs `then` with the cluster's provider. */
  const guarded =
    (via: 'header' | 'path', then: (provider: PolicySetProvider, name: string) => Handler): Handler =>
    async (c) => {
      const name = c.req.param('cluster') ?? '';
      const cluster = clusters.get(name);
      if (!cluster) return c.json(statusBody(404, unknownClusterMessage(name)), 404);
      const presented = via === 'path' ? c.req.param('secret') : bearerToken(c.req.header('authorization'));
      const auth = await authenticate(name, cluster.verifier, presented, via);
      if (!auth.ok) return c.json(auth.body, auth.status, auth.headers);
      return then(cluster.provider, name)(c);
    };

  const mutate = (provider: PolicySetProvider, name: string) => mutateHandler(mutateDeps, provider, clusterSetName(name));

  app.post('/clusters/:cluster/mutate', guarded('header', mutate));
  app.all('/clusters/:cluster/mutate', onlyMethods('POST', served));
  app.post('/clusters/:cluster/:secret/mutate', guarded('path', mutate));
  app.all('/clusters/:cluster/:secret/mutate', onlyMethods('POST', served));
  app.get('/clusters/:cluster/readyz', guarded('header', (provider) => readyz(provider, serving)));
  app.all('/clusters/:cluster/readyz', onlyMethods('GET, HEAD', served));
}
