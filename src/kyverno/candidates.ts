/**
 * Which policies of a policy set a request can match, by the kind it is matched by (match.ts), found once
 * per set instead of matching every rule of every policy per review. A node Lease UPDATE no policy
 * matches cost 1,310 k instructions against the Kyverno library's policies and 2,971 k against 400 more it
 * does not match (cachegrind, bench/profile-platform.ts), 45 % of it in the per-policy loop of run.ts.
 *
 * Exact by construction: a filter's kind entry without `*`/`?` holds only for a request of that very kind
 * (kindMatches compares it first, wildcardMatch is equality then), and it is tested before any other
 * criterion, so a rule none of whose first-tested filters names the request's kind neither matches nor
 * throws. A policy whose rules cannot be keyed so (a wildcard kind, a filter without kinds) or whose
 * webhook matchConditions are evaluated before its rules (an error there is an outcome) is a candidate for
 * every request.
 */
import { hasWildcard } from '../go/index.js';
import type { CompiledKyvernoPolicy, MatchBlock, ResourceFilter } from './types.js';

/** A list's policies in run order, with what a review needs about them computed once. */
export interface ReviewPlan {
  /** Every policy, in the order they run (`sortPolicies`). */
  readonly order: readonly CompiledKyvernoPolicy[];
  /** The positions in `order` of the admission policies a request matched by `kind` may match, ascending. */
  candidates(kind: unknown): readonly number[];
  /** The positions in `order` of every admission policy. */
  readonly admitted: readonly number[];
  /** Each policy's index in the list given (KyvernoInput.onPolicyStart). */
  readonly indexOf: ReadonlyMap<CompiledKyvernoPolicy, number>;
  /** Does a rule read `images`? */
  readonly usesImages: boolean;
}

export function reviewPlan(policies: readonly CompiledKyvernoPolicy[], order: readonly CompiledKyvernoPolicy[]): ReviewPlan {
  const all: number[] = [];
  const always: number[] = [];
  const keyed: (readonly string[] | undefined)[] = [];
  const kinds = new Set<string>();
  order.forEach((policy, at) => {
    if (!policy.admission) return;
    all.push(at);
    const keys = policy.webhookConditions ? undefined : policyKinds(policy);
    keyed[at] = keys;
    if (keys) for (const k of keys) kinds.add(k);
  });
  const byKind = new Map<string, number[]>([...kinds].map((k) => [k, []]));
  for (const at of all) {
    const keys = keyed[at];
    if (keys === undefined) {
      always.push(at);
      for (const list of byKind.values()) list.push(at);
    } else {
      for (const k of new Set(keys)) byKind.get(k)!.push(at);
    }
  }
  return {
    order,
    // Map keys are strings: a kind of any other type finds none, as it equals no unwildcarded entry.
    candidates: (kind) => byKind.get(kind as string) ?? always,
    admitted: all,
    indexOf: new Map(policies.map((p, i) => [p, i])),
    usesImages: policies.some((p) => p.rules.some((r) => r.usesImages)),
  };
}

/** The kinds a policy's rules can match; undefined when one of them cannot be keyed by kind. */
function policyKinds(policy: CompiledKyvernoPolicy): string[] | undefined {
  const out: string[] = [];
  for (const rule of policy.rules) {
    // Exclude is consulted only after the match holds, so the match alone decides.
    const kinds = blockKinds(rule.match);
    if (kinds === undefined) return undefined;
    out.push(...kinds);
  }
  return out;
}

/** As match.ts blockHolds picks the filters: `any` (one must hold), else `all` (the first is tested first), else `single`. */
function blockKinds(block: MatchBlock): readonly string[] | undefined {
  if (block.any && block.any.length > 0) {
    const out: string[] = [];
    for (const f of block.any) {
      const kinds = filterKinds(f);
      if (kinds === undefined) return undefined;
      out.push(...kinds);
    }
    return out;
  }
  if (block.all && block.all.length > 0) return filterKinds(block.all[0]);
  return block.single === undefined ? [] : filterKinds(block.single);
}

/** An empty filter holds for nothing; a filter's kinds are tested before its other criteria. */
function filterKinds(f: ResourceFilter): readonly string[] | undefined {
  if (f.empty) return [];
  if (!f.kinds) return undefined;
  const out: string[] = [];
  for (const k of f.kinds) {
    if (hasWildcard(k.kind)) return undefined;
    out.push(k.kind);
  }
  return out;
}
