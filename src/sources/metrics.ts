/**
 * Refresh figures for /metrics, one series per policy set (`policy_set="default"` or the cluster's
 * name), read from the refreshers when scraped. Registered on the app's registry:
 * `registerSourceMetrics(amender.metrics.registry, () => refreshers)`.
 */
import { CallbackCounter, CallbackGauge, type Registry } from '../observe/index.js';
import type { PolicySetRefresher, RefreshStats } from './refresher.js';

type Sample = [Record<string, string>, number];

export function registerSourceMetrics(registry: Registry, refreshers: () => Iterable<PolicySetRefresher>): void {
  const each = (pick: (stats: Readonly<RefreshStats>, r: PolicySetRefresher) => number | undefined) => (): Sample[] => {
    const out: Sample[] = [];
    for (const r of refreshers()) {
      const v = pick(r.stats(), r);
      if (v !== undefined) out.push([{ policy_set: r.name }, v]);
    }
    return out;
  };
  registry.register(new CallbackCounter('amender_policy_refresh_total', 'Refreshes of a policy set from its sources.', each((s) => s.attempts)));
  registry.register(
    new CallbackCounter('amender_policy_refresh_failures_total', 'Refreshes that could not read every source (the last good set stayed in force).', each((s) => s.failures)),
  );
  registry.register(new CallbackCounter('amender_policy_refresh_applied_total', 'New policy sets built and applied after a change.', each((s) => s.applied)));
  registry.register(
    new CallbackGauge(
      'amender_policy_refresh_last_success_timestamp_seconds',
      'When every source of the set was last read successfully (Unix time).',
      each((s) => (s.lastSuccessAt ? s.lastSuccessAt.getTime() / 1000 : undefined)),
    ),
  );
  registry.register(new CallbackGauge('amender_policy_documents', 'Documents in the policy set in force.', each((s) => s.documents)));
  registry.register(
    new CallbackGauge(
      'amender_policy_documents_refused',
      'Files or objects the set in force refuses, whole or in part (they do not parse, validate or compile): their last good version stays in force, or new ones are left out.',
      each((s) => s.refusedDocuments),
    ),
  );
  registry.register(
    new CallbackGauge('amender_policy_source_errors', 'Errors of the last refresh of the set (0 when its sources read).', each((_s, r) => r.provider().sourceErrors.length)),
  );
  registry.register(
    new CallbackCounter('amender_policy_document_reads_total', 'Documents by how a refresh read them: fetched, not_modified (304) or skipped (listing unchanged).', () => {
      const out: Sample[] = [];
      for (const r of refreshers()) {
        const s = r.stats();
        out.push([{ policy_set: r.name, result: 'fetched' }, s.fetched], [{ policy_set: r.name, result: 'not_modified' }, s.notModified], [{ policy_set: r.name, result: 'skipped' }, s.skipped]);
      }
      return out;
    }),
  );
}
