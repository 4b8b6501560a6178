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
    let byEngine = bySet.get(policySet);
    if (byEngine === undefined) bySet.set(policySet, (byEngine = new Map()));
    let byPolicy = byEngine.get(engine);
    if (byPolicy === undefined) byEngine.set(engine, (byPolicy = new Map()));
    let series = byPolicy.get(policy);
    if (series === undefined) byPolicy.set(policy, (series = { outcomes: new Map() }));
    return series;
  };

  const recordRule = (policySet: string, policy: string, series: PolicySeries, rule: { rule: string; status: string; durationMs?: number }): void => {
    series.rules ??= new Map();
    let ruleSeries = series.rules.get(rule.rule);
    if (ruleSeries === undefined) series.rules.set(rule.rule, (ruleSeries = { statuses: new Map() }));
    let counter = ruleSeries.statuses.get(rule.status);
    if (counter === undefined) {
      counter = rules.child({ policy_set: policySet, policy, rule: rule.rule, status: rule.status });
      ruleSeries.statuses.set(rule.status, counter);
    }
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
        let counter = series.outcomes.get(label);
        if (counter === undefined) {
          counter = evaluations.child({ policy_set: policySet, engine: o.engine, policy: o.policy, outcome: label });
          series.outcomes.set(label, counter);
        }
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
