import type { Context } from 'hono';
import type { PolicySetProvider } from '../policy-state.js';
import type { AppEnv } from '../context.js';

/** Liveness: the process answers. */
export function healthz(c: Context<AppEnv>): Response {
  return c.json({ status: 'ok' });
}

/**
 * Readiness: a policy set is loaded. The reply says what is in force — counts, the problems of the set
 * (a broken policy is reported and the others serve) and the errors of its source — so an operator sees
 * at a glance why a policy does nothing.
 */
export function readyz(policies: PolicySetProvider) {
  return (c: Context<AppEnv>): Response => {
    const state = policies();
    if (!state.set) {
      return c.json({ ready: false, source: state.source, message: 'no policy set is loaded yet', sourceErrors: state.sourceErrors }, 503);
    }
    return c.json({
      ready: true,
      source: state.source,
      loadedAt: state.loadedAt?.toISOString(),
      counts: state.set.counts,
      problems: state.set.problems,
      sourceErrors: state.sourceErrors,
    });
  };
}
