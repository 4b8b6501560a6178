/**
 * Which policy: per-policy and per-Kyverno-rule outcome counters and duration histograms, labelled with
 * the policy set (`default` or the cluster's name), so an operator sees which policy denies, errors,
 * hits the deadline or takes the time. Label values are policy and rule names from the set in force
 * (bounded by the set), never object content.
 */
import { ChildTable, Counter, Histogram, type CounterChild, type HistogramChild, type Registry } from '../observe/index.js';

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

export function createPolicyMetrics(registry: Registry): PolicyMetrics {
  const evaluations = registry.register(
    new Counter('amender_policy_evaluations_total', 'Policy evaluations, by policy set, engine, policy and outcome (mutated, unchanged, skipped, error, error_ignored, deadline, size, cancelled).'),
  );
  const seconds = registry.register(new Histogram('amender_policy_duration_seconds', 'Time one policy took in one review, by policy set, engine and policy.', POLICY_BUCKETS));
  const rules = registry.register(new Counter('amender_kyverno_rule_evaluations_total', 'Kyverno rules that matched, by policy set, policy, rule and status.'));
  const ruleSeconds = registry.register(new Histogram('amender_kyverno_rule_duration_seconds', 'Time one Kyverno rule took in one review, by policy set, policy and rule.', POLICY_BUCKETS));
  // Resolved once per series (a policy set holds a bounded number of policies and rules), not per review.
  const evaluationSeries = new ChildTable<CounterChild>(['policy_set', 'engine', 'policy', 'outcome'], (labels) => evaluations.child(labels));
  const secondsSeries = new ChildTable<HistogramChild>(['policy_set', 'engine', 'policy'], (labels) => seconds.child(labels));
  const ruleSeries = new ChildTable<CounterChild>(['policy_set', 'policy', 'rule', 'status'], (labels) => rules.child(labels));
  const ruleSecondsSeries = new ChildTable<HistogramChild>(['policy_set', 'policy', 'rule'], (labels) => ruleSeconds.child(labels));
  return {
    record(policySet, outcomes) {
      for (const o of outcomes) {
        evaluationSeries.get(policySet, o.engine, o.policy, outcomeLabel(o)).inc();
        if (o.durationMs !== undefined) secondsSeries.get(policySet, o.engine, o.policy).observe(o.durationMs / 1000);
        if (o.rules === undefined) continue;
        for (const r of o.rules) {
          ruleSeries.get(policySet, o.policy, r.rule, r.status).inc();
          if (r.durationMs !== undefined) ruleSecondsSeries.get(policySet, o.policy, r.rule).observe(r.durationMs / 1000);
        }
      }
    },
  };
}
