/**
 * What of a request path a log line or a reply may show. A cluster's secret may travel as a path
 * segment (`/clusters/{cluster}/{secret}/mutate`), and every path is logged and echoed by the 404 and 405
 * replies (which the API server may log in turn). A client that gets the URL slightly wrong puts the
 * secret where no route expects one: behind an ingress prefix, under `/cluster/`, after `/mutate/`, in the
 * cluster's place when the name is left out. So two rules hold on every path, matched by a route or not:
 *
 * - By length, anywhere: a segment of SECRET_LIKE_LENGTH (16) characters or more is `[redacted]`, unless
 *   it is a served cluster's name. Every route word is shorter, and so are most mistyped paths worth
 *   reading; a secret cannot be told from a name by its look (`openssl rand -hex 16` is a DNS label).
 * - By place, from the first segment that reads `clusters` (or `cluster`, a typo) on: every segment after the cluster segment
 *   except a route's own name, whatever its length (a secret shorter than advised, where it belongs); the
 *   cluster segment itself unless it reads as a cluster name (and, when long, a served one).
 *
 *   /clusters/prod/mutate              unchanged
 *   /clusters/prod/<secret>/mutate     /clusters/prod/[redacted]/mutate
 *   /clusters/prod/<anything else>     /clusters/prod/[redacted]
 *   /clusters/<secret>/mutate          /clusters/[redacted]/mutate
 *   /amender/clusters/prod/<s>/mutate  /amender/clusters/prod/[redacted]/mutate
 *   /cluster/prod/<secret>/mutate      /cluster/prod/[redacted]/mutate     (a short secret too)
 *   /mutate/<secret>                   /mutate/[redacted]
 *   /clusters/prod%2F<secret>/mutate   /clusters/[redacted]/mutate
 *   /clusters%2Fprod%2F<secret>...     /clusters/[redacted]
 *   /clusters<anything>/...            /[redacted]
 *   /nope, /favicon.ico                unchanged
 *
 * The path may be raw (the request target) or already decoded once (the router's): every segment is
 * judged on what it decodes to, and a secret's encoded form is never shorter than the secret, so
 * percent-encoding (`%2F`, `%252F`, `%63lusters`) changes nothing. Leading or doubled slashes and the case
 * of `clusters` do not matter either.
 */
import { SECRET_LIKE_LENGTH } from '../clusters/index.js';

/** Whether a name is a served cluster's (not secret: in webhook configurations, URLs and metrics). */
export type IsServedCluster = (name: string) => boolean;

export const REDACTED = '[redacted]';

/** The routes below `/clusters/{cluster}/` that carry no secret; the path-secret routes end with one of them. */
const CLUSTER_ROUTES = new Set(['mutate', 'readyz']);

const noneServed: IsServedCluster = () => false;

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

/** Whether `text` (a decoded cluster segment) has the shape of a cluster name. */
export function hasClusterNameShape(text: string): boolean {
  return NAME_SHAPE.test(text);
}

/** Whether a reply may echo `name`, a cluster name that names no served cluster: short and name-shaped. */
export function mayEchoUnknownName(name: string): boolean {
  return name.length < SECRET_LIKE_LENGTH && NAME_SHAPE.test(name);
}

/**
 * The cluster segment of a path as a log or a reply may show it: the name when it decodes to something
 * shaped like a cluster name, short or served, else undefined (`alpha%2F<secret>`, `alpha;<secret>`, a
 * secret put where the name belongs: none is echoed).
 */
function shownClusterName(segment: string, isServedCluster: IsServedCluster): string | undefined {
  if (segment === '') return '';
  const decoded = decodedSegment(segment);
  if (decoded === undefined || !NAME_SHAPE.test(decoded)) return undefined;
  return decoded.length < SECRET_LIKE_LENGTH || isServedCluster(decoded) ? decoded : undefined;
}

/** A segment outside a cluster route's places: shown unless it is long enough to be a secret. */
function shownSegment(segment: string, isServedCluster: IsServedCluster): string {
  if (segment.length < SECRET_LIKE_LENGTH) return segment;
  const decoded = decodedSegment(segment);
  return decoded !== undefined && NAME_SHAPE.test(decoded) && isServedCluster(decoded) ? segment : REDACTED;
}

/**
 * The segment lower-cased and decoded when it starts with `clusters` or `cluster` (`/clusters…`,
 * `%63lusters`, the singular a client may type), else undefined.
 */
function clustersWord(segment: string): string | undefined {
  if (!segment.includes('%') && !/^cluster/i.test(segment)) return undefined;
  const word = (decodedSegment(segment) ?? segment).replace(/^\/+/, '').toLowerCase();
  return word.startsWith('cluster') ? word : undefined;
}

/** The segments from the one that reads `clusters` (at `at`, read as `word`) on, as they may be shown. */
function shownClusterRoute(segments: string[], at: number, word: string, isServedCluster: IsServedCluster): string[] {
  const name = word.startsWith('clusters') ? 'clusters' : 'cluster';
  // `/clusters%2F<name>%2F<secret>...`: the whole route in one encoded segment; nothing after it is shown.
  if (word.startsWith(`${name}/`)) return [`${name}/${REDACTED}`];
  // `/clusters%zz<...>`, `/clusters;<...>`: a mistyped cluster path; nothing of it is shown.
  if (word !== name) return [REDACTED];
  const cluster = at + 1;
  if (cluster >= segments.length) return [segments[at]];
  const head = [segments[at], shownClusterName(segments[cluster], isServedCluster) ?? REDACTED];
  const rest = segments.slice(cluster + 1);
  if (rest.length === 0) return head;
  if (rest.length === 1 && CLUSTER_ROUTES.has(rest[0])) return [...head, rest[0]];
  if (rest.length === 2 && CLUSTER_ROUTES.has(rest[1])) return [...head, REDACTED, rest[1]];
  return [...head, REDACTED];
}

const CLUSTERS_ANYWHERE = /cluster/i;
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;

/**
 * The path as logs and replies may show it (see the rules above). `isServedCluster` lets a served
 * cluster's long name be shown; without it every segment of 16 characters or more is redacted.
 */
export function redactPath(path: string, isServedCluster: IsServedCluster = noneServed): string {
  // Every request is logged, most on a short fixed path (`/mutate`): nothing in it can be hidden.
  if (path.length < SECRET_LIKE_LENGTH && !path.includes('%') && !CLUSTERS_ANYWHERE.test(path)) return path;
  // An absolute-form request target (`POST http://host/clusters/...`, logged as sent when it is refused).
  const origin = ABSOLUTE_FORM.exec(path);
  if (origin) return origin[0] + redactPath(path.slice(origin[0].length), isServedCluster);
  const segments = path.split('/');
  const shown: string[] = [];
  for (let at = 0; at < segments.length; at++) {
    const word = clustersWord(segments[at]);
    if (word !== undefined) return [...shown, ...shownClusterRoute(segments, at, word, isServedCluster)].join('/');
    shown.push(shownSegment(segments[at], isServedCluster));
  }
  return shown.join('/');
}
