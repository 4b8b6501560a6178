/** The sources a Worker can read: R2 bucket bindings from `env`, and the bundled set. Core-safe. */
import type { PolicyBundle } from './bundle.js';
import { bundledSource } from './bundled.js';
import { r2Source } from './r2.js';
import type { SourceResolvers } from './resolve.js';

export function workerSourceResolvers(env: Readonly<Record<string, unknown>>, bundle?: PolicyBundle): SourceResolvers {
  return {
    r2: (u) => r2Source({ uri: u.uri, bucket: Object.prototype.hasOwnProperty.call(env, u.binding) ? env[u.binding] : undefined, prefix: u.prefix }),
    ...(bundle ? { bundled: () => bundledSource(bundle) } : {}),
  };
}
