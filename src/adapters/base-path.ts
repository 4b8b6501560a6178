/**
 * AMENDER_BASE_PATH: a prefix the platform leaves in the path Amender is handed (API Gateway behind a
 * custom domain's API mapping; a Worker route under a path such as `example.com/amender/*`; an ingress or
 * gateway that routes a path prefix to the Node server without rewriting it). A path that starts with it,
 * by whole segments, is served without it; any other path as it is, so the same function answers both
 * with and without the prefix.
 */

/** `path` without the whole leading segments `prefix` (`/a` is no prefix of `/ab`); `path` when it does not start with them. */
export function withoutPathPrefix(path: string, prefix: string | undefined): string {
  if (prefix === undefined) return path;
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

/** `request` as the app is to see it: the same request, or one at the URL without `basePath` (its body moved along). */
export function withoutBasePath(request: Request, basePath: string | undefined): Request {
  if (basePath === undefined) return request;
  const url = new URL(request.url);
  const path = withoutPathPrefix(url.pathname, basePath);
  if (path === url.pathname) return request;
  url.pathname = path;
  return new Request(url, request);
}
