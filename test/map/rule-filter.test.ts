import { describe, expect, it } from 'vitest';
import { decodeMatchResources } from '../../src/map/decode.js';
import { matchAttributes } from '../../src/map/dispatch.js';
import { NO_EQUIVALENTS, onlyItself, tableEquivalence, type EquivalenceProvider } from '../../src/map/equivalence.js';
import { matchResources, type MatchAttributes } from '../../src/map/match-resources.js';
import { ruleFilter, surelyMisses } from '../../src/map/rule-filter.js';
import type { MatchResources, NamedRuleWithOperations } from '../../src/map/types.js';
import { loadVectors } from './helpers.js';

/** The filter may only answer what the exact matcher answers: `{ matches: false }`, no error. */
function checkAgrees(mr: MatchResources, attr: MatchAttributes, equivalence: EquivalenceProvider, namespaces: (n: string) => any): boolean {
  const ownOnly = onlyItself(equivalence, attr.resource, attr.subResource);
  const misses = surelyMisses(mr, ruleFilter(mr), attr.operation, attr.resource, attr.subResource, ownOnly);
  if (misses) expect(matchResources(mr, attr, { equivalence, namespaces })).toEqual({ matches: false });
  return misses;
}

describe('rule filter against the matcher vectors', () => {
  it('says a miss only where matchResources misses without an error', () => {
    let misses = 0;
    for (const file of ['matching/matcher.yaml', 'matching/selectors.yaml']) {
      for (const v of loadVectors(file)) {
        const decoded = decodeMatchResources(v.matchResources);
        const namespaces = new Map<string, any>((v.namespaces ?? []).map((n: any) => [n.metadata.name, n]));
        const attr = matchAttributes({ ...v.request, kind: v.request.kind ?? { group: '', version: '', kind: '' } });
        const eq = v.equivalentResources ? tableEquivalence(v.equivalentResources) : NO_EQUIVALENTS;
        if (checkAgrees(decoded.value!, attr, eq, (n) => namespaces.get(n))) misses++;
      }
    }
    expect(misses).toBeGreaterThan(0);
  });
});

describe('rule filter, random rules and requests', () => {
  // A small deterministic generator (no seed dependency on Math.random).
  let state = 12345;
  const next = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff), state >>> 16);
  const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length];
  const some = <T>(xs: readonly T[]): T[] => Array.from({ length: next() % 4 === 0 ? 2 : 1 }, () => pick(xs));
  const OPS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'CREATE', 'UPDATE', '*'];
  const GROUPS = ['', 'apps', 'extensions', 'example.io', '', 'apps', '*'];
  const VERSIONS = ['v1', 'v1beta1', 'v1', 'v1beta1', '*'];
  const RESOURCES = ['pods', 'pods/status', 'pods/*', '*', '*/*', '*/status', '*/scale', 'deployments', 'deployments/scale', 'namespaces', 'a/b/c', 'a', 'pods/'];
  const SUBS = ['', 'status', 'scale', 'b/c'];
  const NAMES = ['web', 'db'];
  const SELECTORS = [{}, { matchLabels: { team: 'payments' } }, { matchExpressions: [{ key: 'team', operator: 'Bogus' }] }];
  const rule = (): NamedRuleWithOperations => ({
    resourceNames: next() % 3 === 0 ? some(NAMES) : [],
    operations: some(OPS),
    apiGroups: some(GROUPS),
    apiVersions: some(VERSIONS),
    resources: some(RESOURCES),
    scope: pick(['*', 'Namespaced', 'Cluster']),
  });
  const rules = () => Array.from({ length: next() % 3 }, rule);
  const table = tableEquivalence([
    { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: '', kind: { group: 'apps', version: 'v1', kind: 'Deployment' } },
    { resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, subResource: '', kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' } },
    { resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' }, subResource: '', kind: { group: '', version: '', kind: '' } },
    { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
    { resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, subResource: 'scale', kind: { group: 'extensions', version: 'v1beta1', kind: 'Scale' } },
  ]);
  const nsObject = { metadata: { name: 'shop', labels: { team: 'payments' } } };

  it('agrees with matchResources on 20,000 cases', () => {
    let misses = 0;
    for (let i = 0; i < 20_000; i++) {
      const mr: MatchResources = {
        namespaceSelector: pick(SELECTORS),
        objectSelector: pick(SELECTORS),
        resourceRules: rules(),
        excludeResourceRules: rules(),
        matchPolicy: pick(['Equivalent', 'Exact', null]),
      };
      const attr: MatchAttributes = {
        operation: pick(OPS.slice(0, 6)),
        kind: { group: '', version: 'v1', kind: 'X' },
        resource: { group: pick(GROUPS.slice(0, 6)), version: pick(VERSIONS.slice(0, 4)), resource: pick(['pods', 'deployments', 'namespaces', 'a', 'configmaps']) },
        subResource: pick(SUBS),
        namespace: pick(['', 'shop', 'gone']),
        name: pick(['web', 'db', '']),
        object: { metadata: { labels: { team: 'payments' } } },
        oldObject: null,
      };
      const eq = next() % 2 === 0 ? table : NO_EQUIVALENTS;
      if (checkAgrees(mr, attr, eq, (n) => (n === 'shop' ? nsObject : undefined))) misses++;
    }
    // The filter must also be of use: most random requests miss.
    expect(misses).toBeGreaterThan(5_000);
  });

  it('lets everything through when there are no resourceRules', () => {
    const mr: MatchResources = { namespaceSelector: {}, objectSelector: {}, resourceRules: [], excludeResourceRules: [], matchPolicy: 'Equivalent' };
    expect(ruleFilter(mr)).toBeUndefined();
  });
});
