/**
 * What one webhook cannot do that kube-apiserver does for each MutatingAdmissionPolicy: convert a request to
 * the version a policy names. Under `matchPolicy: Equivalent` the API server sends a request in its own
 * version when a webhook rule names that version, and converts it only when no rule does. A policy
 * (matchPolicy Equivalent, the default) whose rules name a resource in some versions only, while another
 * policy's rules take that resource in another served version too, is then sent those requests
 * unconverted, and the engine, matching the version received (src/map/equivalence.ts), does not run it:
 * kube-apiserver would have converted the request for it. This finds such policies, for a warning.
 */
import type { KindEntry } from './kinds.js';
import { intersectRule, type WebhookRule } from './rules.js';

export interface VersionedCoverage {
  policy: string;
  rules: readonly WebhookRule[];
}

/** The versions a resource is served in (`group/resource` → versions), from the kind table. */
export function servedVersions(table: readonly KindEntry[]): (group: string, resource: string) => readonly string[] | undefined {
  const served = new Map<string, Set<string>>();
  for (const e of table) {
    // A subresource kind's version is not its resource's.
    if (e.anyVersion || e.version === '*') continue;
    for (const pattern of e.resources) {
      const key = `${e.resourceGroup ?? e.group}/${pattern.split('/')[0]}`;
      served.set(key, (served.get(key) ?? new Set()).add(e.version));
    }
  }
  return (group, resource) => {
    const versions = served.get(`${group}/${resource}`);
    return versions ? [...versions] : undefined;
  };
}

const probe = (group: string, version: string, resource: string): WebhookRule => ({ operations: ['*'], apiGroups: [group], apiVersions: [version], resources: [resource], scope: '*' });

const takes = (rules: readonly WebhookRule[], group: string, version: string, resource: string) => rules.some((r) => intersectRule(r, probe(group, version, resource)) !== undefined);

/**
 * One warning per policy of `converting` (policies that expect conversion) whose resources the webhook
 * `rules` also take in a version the policy does not: a version a rule names, or with `*` every version
 * `served` knows of (none when it knows none).
 */
export function unconvertedVersionWarnings(
  converting: readonly VersionedCoverage[],
  rules: readonly WebhookRule[],
  served: (group: string, resource: string) => readonly string[] | undefined,
): string[] {
  const out: string[] = [];
  for (const p of converting) {
    const found = new Set<string>();
    for (const rule of p.rules) {
      if (rule.apiVersions.includes('*')) continue;
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources) {
          const base = resource.split('/')[0];
          if (group === '*' || base === '*') continue;
          const taken = new Set(rules.flatMap((r) => intersectRule(r, probe(group, '*', resource))?.apiVersions ?? []));
          const known = served(group, base);
          const versions = taken.has('*') ? (known ?? []) : [...taken].filter((v) => !known || known.includes(v));
          for (const v of versions) if (!takes(p.rules, group, v, resource)) found.add(`${group || 'core'}/${v} ${resource}`);
        }
      }
    }
    if (found.size > 0) {
      out.push(
        `${p.policy}: the webhook also takes ${[...found].sort().join(', ')} for other policies, and sends such a request in the version it was made in, which this policy does not name: it will not run on it, where kube-apiserver would convert the request for it (matchPolicy Equivalent). Name those versions in its rules too, or only its versions in the other policies`,
      );
    }
  }
  return out;
}
