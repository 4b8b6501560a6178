/**
 * The rule filters (rule-filter.ts) of a list of policies, by ordinal: the policy's matchConstraints and
 * each binding's matchResources. Built once per list of a policy set (the set's lists are frozen and
 * reused by every review), as readsObjectLabels is remembered in dispatch.ts.
 */
import type { BoundPolicy } from './dispatch.js';
import { ruleFilter, type RuleFilter } from './rule-filter.js';

export interface PolicyFilters {
  readonly constraints: RuleFilter | undefined;
  /** By binding index; undefined for a binding without matchResources. */
  readonly bindings: readonly (RuleFilter | undefined)[];
}

const byList = new WeakMap<readonly BoundPolicy[], readonly PolicyFilters[]>();

export function policyFilters(policies: readonly BoundPolicy[]): readonly PolicyFilters[] {
  let filters = byList.get(policies);
  if (filters === undefined) {
    filters = policies.map((bound) => ({
      constraints: bound.policy.matchConstraints ? ruleFilter(bound.policy.matchConstraints) : undefined,
      bindings: bound.bindings.map((b) => (b.matchResources ? ruleFilter(b.matchResources) : undefined)),
    }));
    byList.set(policies, filters);
  }
  return filters;
}
