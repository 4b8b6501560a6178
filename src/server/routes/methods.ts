import type { Context } from 'hono';
import { redactClusterPath } from '../auth.js';
import type { AppEnv } from '../context.js';
import { statusBody } from '../status.js';

/** The 405 answer of a route served only for the `allowed` methods (a path secret is never echoed). */
export function onlyMethods(allowed: string) {
  return (c: Context<AppEnv>) => {
    c.header('Allow', allowed);
    return c.json(statusBody(405, `method ${c.req.method} is not allowed on ${redactClusterPath(c.req.path)}; use ${allowed}`), 405);
  };
}
