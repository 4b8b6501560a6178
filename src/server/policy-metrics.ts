/**
 * Which policy: per-policy and per-Kyverno-rule outcome counters and duration histograms, labelled with
 * the policy set (`default` or the cluster's name), so an operator sees which policy denies, errors,
 * hits the deadline or takes the time. Label values are policy and rule names from the set in force
 * (bounded by the set), never object content.
 *
 * Only the policies of the set in force keep series: when a review or a scrape shows that the set was
 * replaced, the series of policies (and Kyverno rules) the new set no longer serves are dropped, so renamed or rotated
 * policies never grow /metrics without bound. A policy that comes back starts from 0, as Prometheus
 * expects of a series that disappeared (rate() and increase() read it as a counter reset).
 */
import { Counter, Histogram, type CounterChild, type HistogramChild, type Registry } from '../observe/index.js';
import type { PolicySet, PolicySetState } from '../policyset/index.js';
import { servedPolicies } from './served-policies.js';

/** What the engine reports of one policy (src/engine PolicyOutcome, structurally). */
export interface PolicyOutcomeFigures {
  engine: string;
  policy: string;
  result: string;
  ignored?: boolean;
  aborted?: string;
  durationMs?: number;
  rules?: readonly { rule: string; status: string; durationMs?: number }[];
}

/** Seconds; one policy takes microseconds to the review deadline. */
const POLICY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5];

export interface PolicyMetrics {
  /**
   * Counts a review's outcomes. `evaluatedOn` is the state its set was read from: when it holds a newer
   * set than the last seen under that name, the series of policies that set no longer serves are dropped;
   * an outcome of a policy the newest set seen does not serve (a review evaluated against an older set)
   * makes no series.
   */
  record(policySet: string, outcomes: readonly PolicyOutcomeFigures[], evaluatedOn?: SetVersion): void;
  /**
   * Before a scrape: prunes as `record` would the series of every set whose state in force (`inForce` of
   * its name: `default` or the cluster's) holds a newer set, so a set applied shows at once, reviews or not.
   */
  follow(inForce: (policySet: string) => SetVersion | undefined): void;
}

/** A set and its generation (PolicySetState: refreshers number the sets they apply). */
export type SetVersion = Pick<PolicySetState, 'set' | 'generation'>;

/** The label a policy outcome is counted under: the result, or why it stopped. */
export function outcomeLabel(o: Pick<PolicyOutcomeFigures, 'result' | 'ignored' | 'aborted'>): string {
  if (o.aborted) return o.aborted; // deadline | size | cancelled
  if (o.result === 'error') return o.ignored ? 'error_ignored' : 'error';
  return o.result;
}

/** The series of one policy of one set: its outcome counters, its duration histogram, its rules'. */
interface PolicySeries {
  outcomes: Map<string, CounterChild>;
  /** Resolved on the first duration observed (a series is listed from its resolution on). */
  seconds?: HistogramChild;
  rules?: Map<string, RuleSeries>;
}

/** The series of one policy set (`default` or a cluster's), and the newest set seen: they were pruned against it. */
interface SetSeries {
  inForce?: PolicySet;
  generation?: number;
  byEngine: Map<string, Map<string, PolicySeries>>;
}

interface RuleSeries {
  statuses: Map<string, CounterChild>;
  seconds?: HistogramChild;
}

export function createPolicyMetrics(registry: Registry): PolicyMetrics {
  const evaluations = registry.register(
    new Counter('amender_policy_evaluations_total', 'Policy evaluations, by policy set, engine, policy and outcome (mutated, unchanged, skipped, error, error_ignored, deadline, size, cancelled).'),
  );
  const seconds = registry.register(new Histogram('amender_policy_duration_seconds', 'Time one policy took in one review, by policy set, engine and policy.', POLICY_BUCKETS));
  const rules = registry.register(new Counter('amender_kyverno_rule_evaluations_total', 'Kyverno rules that matched, by policy set, policy, rule and status.'));
  const ruleSeconds = registry.register(new Histogram('amender_kyverno_rule_duration_seconds', 'Time one Kyverno rule took in one review, by policy set, policy and rule.', POLICY_BUCKETS));
  // Resolved once per series (a policy set holds a bounded number of policies and rules), not per review:
  // policy set → engine → policy → its series, so a review's outcomes cost a few Map lookups each.
  const bySet = new Map<string, SetSeries>();

  /** The policy's series; undefined for a policy `inForce` does not serve (it gets none). */
  const policySeries = (set: SetSeries, engine: string, policy: string): PolicySeries | undefined => {
    const byPolicy = set.byEngine.get(engine) ?? remember(set.byEngine, engine, new Map());
    const found = byPolicy.get(policy);
    if (found !== undefined) return found;
    if (set.inForce !== undefined && !servedPolicies(set.inForce).has(engine, policy)) return undefined;
    return remember(byPolicy, policy, { outcomes: new Map() });
  };

  /** Drops the series of policies, and Kyverno rules, that `set.inForce` no longer serves. */
  const prune = (policySet: string, set: SetSeries, inForce: PolicySet): void => {
    const served = servedPolicies(inForce);
    for (const [engine, byPolicy] of set.byEngine) {
      for (const [policy, series] of byPolicy) {
        const labels = { policy_set: policySet, engine, policy };
        if (!served.has(engine, policy)) {
          for (const outcome of series.outcomes.keys()) evaluations.remove({ ...labels, outcome });
          if (series.seconds) seconds.remove(labels);
          for (const rule of series.rules?.keys() ?? []) removeRule(policySet, policy, rule, series);
          byPolicy.delete(policy);
        } else {
          for (const rule of series.rules?.keys() ?? []) if (!served.hasRule(policy, rule)) removeRule(policySet, policy, rule, series);
        }
      }
    }
  };

  /** Prunes `set` when `version` holds another set than the one it was last pruned against, not an older one. */
  const followSet = (policySet: string, set: SetSeries, version: SetVersion | undefined): void => {
    const next = version?.set;
    if (next === undefined || next === set.inForce) return;
    // A review evaluated against an older set (a review worker's, while a newer one was applied) never
    // takes the series back to it. Sets without a generation (a fixed set, tests) are taken as they come.
    if (version!.generation !== undefined && set.generation !== undefined && version!.generation < set.generation) return;
    prune(policySet, set, next);
    set.inForce = next;
    set.generation = version!.generation;
  };

  const removeRule = (policySet: string, policy: string, rule: string, series: PolicySeries): void => {
    const ruleSeries = series.rules!.get(rule)!;
    for (const status of ruleSeries.statuses.keys()) rules.remove({ policy_set: policySet, policy, rule, status });
    if (ruleSeries.seconds) ruleSeconds.remove({ policy_set: policySet, policy, rule });
    series.rules!.delete(rule);
  };

  const recordRule = (policySet: string, policy: string, series: PolicySeries, rule: { rule: string; status: string; durationMs?: number }, inForce: PolicySet | undefined): void => {
    const byRule = (series.rules ??= new Map());
    let ruleSeries = byRule.get(rule.rule);
    if (ruleSeries === undefined) {
      if (inForce !== undefined && !servedPolicies(inForce).hasRule(policy, rule.rule)) return;
      ruleSeries = remember(byRule, rule.rule, { statuses: new Map() });
    }
    const counter = ruleSeries.statuses.get(rule.status) ?? remember(ruleSeries.statuses, rule.status, rules.child({ policy_set: policySet, policy, rule: rule.rule, status: rule.status }));
    counter.inc();
    if (rule.durationMs === undefined) return;
    ruleSeries.seconds ??= ruleSeconds.child({ policy_set: policySet, policy, rule: rule.rule });
    ruleSeries.seconds.observe(rule.durationMs / 1000);
  };

  return {
    follow(inForceOf) {
      for (const [policySet, set] of bySet) followSet(policySet, set, inForceOf(policySet));
    },
    record(policySet, outcomes, evaluatedOn) {
      const set = bySet.get(policySet) ?? remember(bySet, policySet, { byEngine: new Map() });
      followSet(policySet, set, evaluatedOn);
      for (const o of outcomes) {
        const series = policySeries(set, o.engine, o.policy);
        if (series === undefined) continue;
        const label = outcomeLabel(o);
        const counter = series.outcomes.get(label) ?? remember(series.outcomes, label, evaluations.child({ policy_set: policySet, engine: o.engine, policy: o.policy, outcome: label }));
        counter.inc();
        if (o.durationMs !== undefined) {
          series.seconds ??= seconds.child({ policy_set: policySet, engine: o.engine, policy: o.policy });
          series.seconds.observe(o.durationMs / 1000);
        }
        if (o.rules !== undefined) for (const r of o.rules) recordRule(policySet, o.policy, series, r, set.inForce);
      }
    },
  };
}

/** `value` kept under `key` in `map`, and returned (after a `get` that found nothing: `get(k) ?? remember(…)`). */
function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.set(key, value);
  return value;
}
