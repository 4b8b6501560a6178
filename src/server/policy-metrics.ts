/**
 * Which policy: per-policy and per-Kyverno-rule outcome counters and duration histograms, labelled with
 * the policy set (`default` or the cluster's name), so an operator sees which policy denies, errors,
 * hits the deadline or takes the time. Label values are policy and rule names from the set in force
 * (bounded by the set), never object content.
 */
import { Counter, Histogram, type CounterChild, type HistogramChild, type Registry } from '../observe/index.js';

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
  record(policySet: string, outcomes: readonly PolicyOutcomeFigures[]): void;
}

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
  const bySet = new Map<string, Map<string, Map<string, PolicySeries>>>();

  const policySeries = (policySet: string, engine: string, policy: string): PolicySeries => {
    const byEngine = bySet.get(policySet) ?? remember(bySet, policySet, new Map());
    const byPolicy = byEngine.get(engine) ?? remember(byEngine, engine, new Map());
    return byPolicy.get(policy) ?? remember(byPolicy, policy, { outcomes: new Map() });
  };

  const recordRule = (policySet: string, policy: string, series: PolicySeries, rule: { rule: string; status: string; durationMs?: number }): void => {
    const byRule = (series.rules ??= new Map());
    const ruleSeries = byRule.get(rule.rule) ?? remember(byRule, rule.rule, { statuses: new Map() });
    const counter = ruleSeries.statuses.get(rule.status) ?? remember(ruleSeries.statuses, rule.status, rules.child({ policy_set: policySet, policy, rule: rule.rule, status: rule.status }));
    counter.inc();
    if (rule.durationMs === undefined) return;
    ruleSeries.seconds ??= ruleSeconds.child({ policy_set: policySet, policy, rule: rule.rule });
    ruleSeries.seconds.observe(rule.durationMs / 1000);
  };

  return {
    record(policySet, outcomes) {
      for (const o of outcomes) {
        const series = policySeries(policySet, o.engine, o.policy);
        const label = outcomeLabel(o);
        const counter = series.outcomes.get(label) ?? remember(series.outcomes, label, evaluations.child({ policy_set: policySet, engine: o.engine, policy: o.policy, outcome: label }));
        counter.inc();
        if (o.durationMs !== undefined) {
          series.seconds ??= seconds.child({ policy_set: policySet, engine: o.engine, policy: o.policy });
          series.seconds.observe(o.durationMs / 1000);
        }
        if (o.rules !== undefined) for (const r of o.rules) recordRule(policySet, o.policy, series, r);
      }
    },
  };
}

/** `value` kept under `key` in `map`, and returned (after a `get` that found nothing: `get(k) ?? remember(…)`). */
function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.set(key, value);
  return value;
}
