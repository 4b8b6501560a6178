import { describe, expect, it } from 'vitest';
import { decodeMatchResources } from '../../src/map/decode.js';
import { matchAttributes } from '../../src/map/dispatch.js';
import { NO_EQUIVALENTS, tableEquivalence } from '../../src/map/equivalence.js';
import { combineConditions, type ConditionOutcome } from '../../src/map/match-conditions.js';
import { matchResources, type MatchAttributes } from '../../src/map/match-resources.js';
import { groupMatches, operationMatches, resourceMatches, ruleMatches, scopeMatches, versionMatches } from '../../src/map/rules.js';
import { loadVectors } from './helpers.js';

/** The dispatcher's attributes of a vector request (vectors may leave the kind out). */
function attributes(req: any): MatchAttributes {
  return matchAttributes({ ...req, kind: req.kind ?? { group: '', version: '', kind: '' } });
}

for (const file of ['matching/matcher.yaml', 'matching/selectors.yaml']) {
  describe(file, () => {
    for (const v of loadVectors(file)) {
      it(v.name, () => {
        expect(v.kind).toBe('matcher');
        const decoded = decodeMatchResources(v.matchResources);
        expect(decoded.errors).toEqual([]);
        const namespaces = new Map<string, any>((v.namespaces ?? []).map((n: any) => [n.metadata.name, n]));
        const result = matchResources(decoded.value!, attributes(v.request), {
          equivalence: v.equivalentResources ? tableEquivalence(v.equivalentResources) : NO_EQUIVALENTS,
          namespaces: (name) => namespaces.get(name),
        });
        expect(result.matches).toBe(v.expect.matches);
        if (v.expect.error) {
          expect(result.matches === false && result.error?.message).toContain(v.expect.error);
        } else {
          expect(result.matches === false ? result.error : undefined).toBeUndefined();
        }
        if (result.matches && v.expect.matchedResource) expect(result.resource).toEqual(v.expect.matchedResource);
        if (result.matches && v.expect.matchedKind) expect(result.kind).toEqual(v.expect.matchedKind);
      });
    }
  });
}

describe('matching/rules.yaml', () => {
  const predicates = {
    group: groupMatches,
    version: versionMatches,
    operation: operationMatches,
    resource: resourceMatches,
    scope: scopeMatches,
  } as const;
  for (const v of loadVectors('matching/rules.yaml')) {
    it(v.name, () => {
      expect(v.kind).toBe('rule');
      const predicate = predicates[v.predicate as keyof typeof predicates];
      // The full rule: the fields under test, every other list '*' and scope '*' (see the vector notes).
      const field = { group: 'apiGroups', version: 'apiVersions', operation: 'operations', resource: 'resources', scope: 'scope' }[
        v.predicate as string
      ]!;
      const rule = { apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], operations: ['*'], scope: '*', [field]: v.rule[field] };
      for (const c of v.cases) {
        const attr = {
          operation: c.request.operation,
          resource: { group: c.request.group, version: c.request.version, resource: c.request.resource },
          subResource: c.request.subResource ?? '',
          namespace: c.request.namespace ?? '',
          name: c.request.name ?? '',
        };
        expect(predicate(rule, attr), JSON.stringify(c.request)).toBe(c.matches);
        expect(ruleMatches(rule, attr), JSON.stringify(c.request)).toBe(c.matches);
      }
    });
  }
});

describe('matching/matchconditions.yaml', () => {
  for (const v of loadVectors('matching/matchconditions.yaml')) {
    it(v.name, () => {
      expect(v.kind).toBe('matchConditionLogic');
      const outcomes: ConditionOutcome[] = v.conditions.map((c: any, i: number) =>
        c.error !== undefined ? { name: c.name ?? `c${i}`, error: c.error } : { name: c.name ?? `c${i}`, result: c.result },
      );
      // The Go test's whole-evaluation failure carries the text "test error".
      const verdict = combineConditions(outcomes, v.failurePolicy, v.evaluationError ? 'test error' : undefined);
      if (v.expect.error) {
        expect('error' in verdict && verdict.error).toContain(v.expect.error);
      } else {
        expect(verdict.matches).toBe(v.expect.matches);
        expect('error' in verdict).toBe(false);
        if (v.expect.failedConditionName) expect(verdict).toMatchObject({ failedConditionName: v.expect.failedConditionName });
      }
    });
  }
});
