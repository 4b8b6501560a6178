/**
 * Who may call a cluster's routes: the caller shows the cluster's secret, as `Authorization: Bearer
 * <secret>` or as a path segment (managed control planes cannot add headers to webhook calls). Checked
 * before the body is read and before the cluster's policy set is looked at.
 */
import type { StatusBody } from './status.js';
import { statusBody } from './status.js';
import type { SecretCheck } from '../clusters/index.js';

export type AuthOutcome = { ok: true } | { ok: false; status: 401; body: StatusBody; headers: Record<string, string> };

export const WWW_AUTHENTICATE = 'Bearer realm="amender"';

/**
 * The token of an `Authorization: Bearer <token>` header; undefined when there is no such header or it
 * uses another scheme (RFC 6750: the scheme is case-insensitive, one or more spaces before the token).
 */
export function bearerToken(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer +([^\s]+) *$/i.exec(header);
  return m ? m[1] : undefined;
}

function refuse(message: string): AuthOutcome {
  return { ok: false, status: 401, body: statusBody(401, message), headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } };
}

/** Checks `presented` for `cluster`; the messages name the cluster, never the secret. */
export async function authenticate(cluster: string, check: SecretCheck, presented: string | undefined, via: 'header' | 'path'): Promise<AuthOutcome> {
  if (presented === undefined || presented === '') {
    return refuse(`cluster ${cluster} needs its secret: send Authorization: Bearer <secret>, or call /clusters/${cluster}/<secret>/mutate`);
  }
  if (!(await check.verify(presented))) {
    return refuse(`the secret given ${via === 'header' ? 'in the Authorization header' : 'in the path'} is not accepted for cluster ${cluster}`);
  }
  return { ok: true };
}

/** The routes below `/clusters/{cluster}/` that carry no secret; the path-secret routes end with one of them. */
const CLUSTER_ROUTES = new Set(['mutate', 'readyz']);
const REDACTED = '[redacted]';

/**
 * The path as logs may show it: on any `/clusters/...` path, matched by a route or not, every segment after
 * the cluster name is replaced, except a known route's own name. A secret is never a route's name, so a
 * mistyped URL (`/clusters/a/<secret>//mutate`, `/Mutate`, `/mutate/x`) cannot carry one into a log.
 *
 *   /clusters/prod/mutate              unchanged
 *   /clusters/prod/<secret>/mutate     /clusters/prod/[redacted]/mutate
 *   /clusters/prod/<anything else>     /clusters/prod/[redacted]
 *
 * Leading or doubled slashes and the case of `clusters` do not matter (a client's typo must not leak
 * either); paths outside `/clusters/` are returned as they are.
 */
const CLUSTERS_SEGMENT = /clusters/i;

export function redactClusterPath(path: string): string {
  if (!CLUSTERS_SEGMENT.test(path)) return path; // every request is logged: most are not cluster routes
  const segments = path.split('/');
  // The first non-empty segment must be `clusters`; anything before it is slashes.
  let at = 0;
  while (at < segments.length && segments[at] === '') at++;
  if (at >= segments.length || segments[at].toLowerCase() !== 'clusters') return path;
  const cluster = at + 1;
  const rest = segments.slice(cluster + 1);
  if (rest.length === 0) return path;
  const head = segments.slice(0, cluster + 1).join('/');
  if (rest.length === 1 && CLUSTER_ROUTES.has(rest[0])) return path;
  if (rest.length === 2 && CLUSTER_ROUTES.has(rest[1])) return `${head}/${REDACTED}/${rest[1]}`;
  return `${head}/${REDACTED}`;
}
