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
 * A segment as it reads once every layer of percent-encoding is undone (`%252F` → `%2F` → `/`; at most a
 * few layers), or undefined when it does not decode (a bad `%` escape or bad UTF-8).
 */
function decodedSegment(segment: string): string | undefined {
  let text = segment;
  for (let layer = 0; layer < 4 && text.includes('%'); layer++) {
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      return undefined;
    }
    if (next === text) break;
    text = next;
  }
  return text;
}

/** A DNS-1123 label, any case (a mistyped `Alpha` is shown as typed): what a cluster name can look like. */
const NAME_SHAPE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Whether `text` (a decoded cluster segment) has the shape of a cluster name, so a reply may echo it. */
export function hasClusterNameShape(text: string): boolean {
  return NAME_SHAPE.test(text);
}

/**
 * The cluster segment of a path as a log or a reply may show it: the name when it decodes to something
 * shaped like a cluster name, else undefined (`alpha%2F<secret>`, `alpha;<secret>`, a 64-character secret
 * put where the name belongs: none is a name, and none is echoed).
 */
export function shownClusterName(segment: string): string | undefined {
  if (segment === '') return '';
  const decoded = decodedSegment(segment);
  return decoded !== undefined && NAME_SHAPE.test(decoded) ? decoded : undefined;
}

/**
 * The path as logs and replies may show it: on any `/clusters/...` path, matched by a route or not,
 * every segment after the cluster name is replaced, except a known route's own name; the cluster segment
 * itself is kept only when it reads as a cluster name. A secret is never a route's name nor has a name's
 * shape once the slash before it is encoded, so a mistyped URL (`/clusters/a/<secret>//mutate`, `/Mutate`,
 * `/mutate/x`, `/clusters/a%2F<secret>/mutate`) cannot carry one into a log or a reply.
 *
 *   /clusters/prod/mutate              unchanged
 *   /clusters/prod/<secret>/mutate     /clusters/prod/[redacted]/mutate
 *   /clusters/prod/<anything else>     /clusters/prod/[redacted]
 *   /clusters/prod%2F<secret>/mutate   /clusters/[redacted]/mutate
 *   /clusters%2Fprod%2F<secret>...     /clusters/[redacted]
 *   /clusters<anything>/...            /[redacted]
 *
 * The path may be raw (the request target) or already decoded once (the router's): every segment is
 * judged on what it decodes to, so percent-encoding (`%2F`, `%2f`, `%252F`, `%63lusters`) changes
 * nothing. Leading or doubled slashes and the case of `clusters` do not matter (a client's typo must not
 * leak either); paths outside `/clusters/` are returned as they are.
 */
const CLUSTERS_SEGMENT = /clusters/i;
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;

export function redactClusterPath(path: string): string {
  // Every request is logged, most are not cluster routes: a path without `clusters` or `%` is not one.
  if (!CLUSTERS_SEGMENT.test(path) && !path.includes('%')) return path;
  // An absolute-form request target (`POST http://host/clusters/...`, logged as sent when it is refused).
  const origin = ABSOLUTE_FORM.exec(path);
  if (origin) return origin[0] + redactClusterPath(path.slice(origin[0].length));
  const segments = path.split('/');
  // The first non-empty segment must be `clusters`; anything before it is slashes.
  let at = 0;
  while (at < segments.length && segments[at] === '') at++;
  if (at >= segments.length) return path;
  const first = (decodedSegment(segments[at]) ?? segments[at]).replace(/^\/+/, '').toLowerCase();
  if (!first.startsWith('clusters')) return path;
  // `/clusters%2F<name>%2F<secret>...`: the whole route in one encoded segment; nothing after it is shown.
  if (first.startsWith('clusters/')) return `${'/'.repeat(at)}clusters/${REDACTED}`;
  // `/clusters%zz<...>`, `/clusters;<...>`: a mistyped cluster path; nothing of it is shown.
  if (first !== 'clusters') return `${'/'.repeat(at)}${REDACTED}`;
  const cluster = at + 1;
  if (cluster >= segments.length) return path;
  const name = shownClusterName(segments[cluster]);
  const head = [...segments.slice(0, cluster), name ?? REDACTED].join('/');
  const rest = segments.slice(cluster + 1);
  if (rest.length === 0) return head;
  if (rest.length === 1 && CLUSTER_ROUTES.has(rest[0])) return `${head}/${rest[0]}`;
  if (rest.length === 2 && CLUSTER_ROUTES.has(rest[1])) return `${head}/${REDACTED}/${rest[1]}`;
  return `${head}/${REDACTED}`;
}
