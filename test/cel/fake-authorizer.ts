/**
 * The vectors' fake authorizer (`{allow: [attributes...], default: {decision, reason, error}}`):
 * a check is allowed when its attributes equal one `allow` entry, otherwise `default` answers.
 */
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../../src/cel/index.js';

export interface FakeAuthorizerSpec {
  allow: Record<string, unknown>[];
  default: { decision: 'allow' | 'deny' | 'noOpinion'; reason?: string; error?: string };
}

/**
 * Attribute names the authorization library reports. The vectors also list
 * `labelSelectorParsingErr` (kube-apiserver parses label selectors); entries' unmodelled keys are
 * not compared (see the final report: label selector parse errors are not reported).
 */
const MODELLED = new Set([
  'resourceRequest', 'apiVersion', 'apiGroup', 'resource', 'subresource', 'namespace', 'name', 'verb', 'path',
  'fieldSelectorParsingErr',
]);

function matches(entry: Record<string, unknown>, attrs: AuthorizationAttributes): boolean {
  const a = attrs as unknown as Record<string, unknown>;
  return Object.entries(entry).every(([k, v]) => !MODELLED.has(k) || (a[k] ?? '') === v);
}

export function fakeAuthorizer(spec: FakeAuthorizerSpec, options: { async?: boolean } = {}): Authorizer & { calls: AuthorizationAttributes[] } {
  const calls: AuthorizationAttributes[] = [];
  const decide = (attrs: AuthorizationAttributes): AuthorizationDecision => {
    calls.push(attrs);
    if (spec.allow.some((e) => matches(e, attrs))) return { decision: 'allow', reason: '' };
    const d = spec.default;
    return { decision: d.decision, reason: d.reason ?? '', ...(d.error ? { error: d.error } : {}) };
  };
  return {
    calls,
    authorize: (attrs) => (options.async ? Promise.resolve().then(() => decide(attrs)) : decide(attrs)),
  };
}
