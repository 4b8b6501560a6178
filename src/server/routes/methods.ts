import type { Context } from 'hono';
import { redactPath, type IsServedCluster } from '../redact.js';
import type { AppEnv } from '../context.js';
import { statusBody } from '../status.js';

/**
 * The 405 answer of a route served only for the `allowed` methods (a path secret is never echoed;
 * `isServedCluster` lets a served cluster's long name be shown).
 */
export function onlyMethods(allowed: string, isServedCluster?: IsServedCluster) {
  return (c: Context<AppEnv>) => {
    c.header('Allow', allowed);
    return c.json(statusBody(405, `method ${c.req.method} is not allowed on ${redactPath(c.req.path, isServedCluster)}; use ${allowed}`), 405);
  };
}
