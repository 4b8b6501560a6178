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

interface ListFilters {
  readonly filters: readonly PolicyFilters[];
  readonly all: readonly number[];
  /** Candidates (see candidates) by request group, for the groups seen so far (at most MAX_GROUPS). */
  readonly byGroup: Map<string, readonly number[]>;
}

/** A bound on the groups remembered per list: past it, a group's candidates are computed each time. */
const MAX_GROUPS = 256;

const byList = new WeakMap<readonly BoundPolicy[], ListFilters>();
/** Per policy too: a review the deadline stopped dispatches a new sub-list of the set's (engine/stopped.ts). */
const byPolicy = new WeakMap<BoundPolicy, PolicyFilters>();

function filtersOf(bound: BoundPolicy): PolicyFilters {
  let f = byPolicy.get(bound);
  if (f === undefined) {
    f = {
      constraints: bound.policy.matchConstraints ? ruleFilter(bound.policy.matchConstraints) : undefined,
      bindings: bound.bindings.map((b) => (b.matchResources ? ruleFilter(b.matchResources) : undefined)),
    };
    byPolicy.set(bound, f);
  }
  return f;
}

function listFilters(policies: readonly BoundPolicy[]): ListFilters {
  let list = byList.get(policies);
  if (list === undefined) {
    list = { filters: policies.map(filtersOf), all: policies.map((_, i) => i), byGroup: new Map() };
    byList.set(policies, list);
  }
  return list;
}

export function policyFilters(policies: readonly BoundPolicy[]): readonly PolicyFilters[] {
  return listFilters(policies).filters;
}

/**
 * The ordinals, in order, of the policies whose matchConstraints' rules list `group` (or `*`), or that
 * have no filter: every other policy's rules surely miss a request of that group (see surelyMisses; the
 * caller uses these only where a miss by the filter is exact). A node Lease review against a set of 700
 * policies then visits the few that can match it, not all (cachegrind, bench/profile-platform.ts).
 */
export function candidates(policies: readonly BoundPolicy[], group: string): readonly number[] {
  const list = listFilters(policies);
  if (typeof group !== 'string') return list.all;
  let out = list.byGroup.get(group);
  if (out === undefined) {
    const found: number[] = [];
    for (let i = 0; i < list.filters.length; i++) {
      const f = list.filters[i].constraints;
      if (f === undefined || f.groups.any || f.groups.values.has(group)) found.push(i);
    }
    out = found;
    if (list.byGroup.size < MAX_GROUPS) list.byGroup.set(group, out);
  }
  return out;
}

/** Every ordinal of the list, in order. */
export function allOrdinals(policies: readonly BoundPolicy[]): readonly number[] {
  return listFilters(policies).all;
}
