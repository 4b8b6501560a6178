/**
 * The app's router: the routes under one first path segment (`/clusters`) apart from all others.
 *
 * Hono's default router tries its fastest one (RegExpRouter) and falls back to TrieRouter for the whole
 * app when one route has a parameter beside a static segment, as the cluster routes do
 * (`/clusters/:cluster/mutate` beside `/clusters/:cluster/:secret/mutate`). Every request then paid the
 * trie's search, `POST /mutate` included: 0.4 µs per match against 0.05, 0.5–0.6 µs more per `app.fetch`,
 * 2.6 KB more garbage per request on the Node server's main thread (bench/JOURNAL.md, stop 32). Split, each
 * side picks its own router: the cluster routes the trie, every other route RegExpRouter.
 *
 *   new Hono({ router: new SplitRouter('clusters') })
 */
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

/** Hono's default choice: RegExpRouter where it takes every route given, else TrieRouter. */
function defaultRouter<T>(): Router<T> {
  return new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
}

/** A route's first segment when it is plain text (no parameter, wildcard or pattern), else undefined. */
function staticFirstSegment(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const end = path.indexOf('/', 1);
  const segment = path.slice(1, end === -1 ? undefined : end);
  return /^[\w.~-]*$/.test(segment) ? segment : undefined;
}

export class SplitRouter<T> implements Router<T> {
  private readonly under: Router<T> = defaultRouter();
  private readonly others: Router<T> = defaultRouter();
  /** `/segment` and `/segment/`: a request path equal to the one or under the other goes to `under`. */
  private readonly root: string;
  private readonly prefix: string;

  /** `segment`: the first path segment whose routes are kept apart (without slashes). */
  constructor(private readonly segment: string) {
    this.root = `/${segment}`;
    this.prefix = `${this.root}/`;
  }

  /** Says which router each side settled on (once a request has reached it). */
  get name(): string {
    return `SplitRouter (/${this.segment}: ${this.under.name}; others: ${this.others.name})`;
  }

  /** A route with a plain first segment goes to its side; any other ('*', '/:x/...') may match either, and goes to both. */
  add(method: string, path: string, handler: T): void {
    const first = staticFirstSegment(path);
    if (first === undefined || first === this.segment) this.under.add(method, path, handler);
    if (first !== this.segment) this.others.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const under = path.startsWith(this.prefix) || path === this.root;
    return (under ? this.under : this.others).match(method, path);
  }
}
