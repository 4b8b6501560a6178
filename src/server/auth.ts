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
