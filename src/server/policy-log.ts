/**
 * Know which policy: one log line per policy that denied the request, failed (even under failurePolicy
 * Ignore) or was stopped by the review's deadline or size bound, naming the policy set, policy, rules,
 * outcome and the object's kind, namespace, name and operation — never the object's content, the
 * engine's detail text (it may quote the object) or a secret.
 */
import type { Logger } from '../observe/index.js';
import { loggedSubject, loggedUid } from './log-fields.js';
import { outcomeLabel } from './policy-metrics.js';
import type { ReviewAnswer, ReviewSubject } from './review.js';

/** The policy set a mutate route's set name (ReviewJob.setName) stands for: undefined for the default one. */
export function clusterOfSet(setName: string): string | undefined {
  return setName.startsWith('clusters/') ? setName.slice('clusters/'.length) : undefined;
}

export function logPolicyFailures(logger: Logger, policySet: string, answer: Extract<ReviewAnswer, { status: 200 }>): void {
  // Bounded once, for every line of the review (log-fields.ts).
  let uid: string | undefined;
  let subject: ReviewSubject | undefined;
  for (const o of answer.outcomes ?? []) {
    if (o.result !== 'error' && !o.aborted) continue;
    if (uid === undefined) {
      uid = loggedUid(answer.uid);
      subject = answer.subject && loggedSubject(answer.subject);
    }
    const failedRules = o.rules?.filter((r) => r.status === 'error' || r.status === 'fail').map((r) => r.rule);
    logger({
      level: 'warn',
      msg: o.aborted === 'deadline' || o.aborted === 'cancelled' ? 'policy stopped' : o.ignored ? 'policy error ignored' : 'policy failed',
      policySet,
      engine: o.engine,
      policy: o.policy,
      ...(o.binding !== undefined ? { binding: o.binding } : {}),
      ...(failedRules && failedRules.length > 0 ? { rules: failedRules } : {}),
      outcome: outcomeLabel(o),
      ...(o.failurePolicy ? { failurePolicy: o.failurePolicy } : {}),
      denied: answer.outcome === 'denied',
      uid,
      ...(subject ?? {}),
      durationMs: Math.round(o.durationMs * 1000) / 1000,
    });
  }
}
