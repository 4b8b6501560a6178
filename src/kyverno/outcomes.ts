/**
 * Presenting a run's outcomes: one line per matched rule for people (CLI, logs), and the audit
 * annotation the webhook reply carries so that `kubectl get events`/audit logs show what Kyverno rules
 * did to an object.
 */
import type { KyvernoResult } from './run.js';

/** The audit annotation key (the API server prefixes it with the webhook's name). */
export const KYVERNO_AUDIT_ANNOTATION = 'kyverno-mutate';

/**
 * `{ "kyverno-mutate": "[{\"policy\":…,\"rule\":…,\"status\":…,\"message\":…}]" }`, or no annotation
 * when no rule matched.
 */
export function kyvernoAuditAnnotations(result: KyvernoResult): Record<string, string> {
  const entries = result.policies.flatMap((p) =>
    p.rules.map((r) => ({ policy: p.policy, rule: r.rule, status: r.status, message: r.message })),
  );
  return entries.length === 0 ? {} : { [KYVERNO_AUDIT_ANNOTATION]: JSON.stringify(entries) };
}

/** `ClusterPolicy/add-labels rule add-team: applied (mutated Pod/web)` — one line per matched rule. */
export function formatKyvernoOutcomes(result: KyvernoResult): string[] {
  const lines: string[] = [];
  for (const p of result.policies) {
    for (const r of p.rules) lines.push(`${p.policy} rule ${r.rule}: ${r.status} (${r.message})`);
    if (p.status === 'error') {
      lines.push(
        p.failurePolicy === 'Fail'
          ? `${p.policy}: failed, failurePolicy Fail: the request is denied`
          : `${p.policy}: failed, failurePolicy Ignore: its changes are dropped`,
      );
    }
  }
  return lines;
}
