/**
 * `amender apply -p/--policy-report`: the results as `kyverno apply -p` prints them (commands/apply/
 * print.go printReports, report/report.go, pkg/utils/report/results.go ToPolicyReportResult): one
 * openreports.io ClusterReport named `merged` holding the results of cluster-wide policies, then one
 * PolicyReport per namespaced Policy. Kyverno orders the policies as a Go map iterates; here they keep the
 * order their first result came in, so the output is the same every run but for the timestamp.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import { yamlOutput } from './output.js';

export type ReportStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip';

/** The sources Kyverno names (pkg/utils/report/source.go). */
export type ReportSource = 'kyverno' | 'KyvernoMutatingPolicy' | 'MutatingAdmissionPolicy';

export interface ReportPolicy {
  source: ReportSource;
  kind: string;
  name: string;
  /** A namespaced policy's namespace: its results go in a PolicyReport of that namespace. */
  namespace?: string;
}

export interface ReportEntry {
  policy: ReportPolicy;
  /** The rule's name; '' for a MutatingPolicy (none), the policy's name for a MutatingAdmissionPolicy. */
  rule: string;
  result: ReportStatus;
  message?: string;
  /** The resource the policy was applied to. */
  resource: JsonObject;
  /** A MutatingAdmissionPolicy's binding (Kyverno's `mapBinding` property). */
  binding?: string;
}

const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The document of `policy` among the set's documents (its annotations and spec say scored, category, process). */
function policyDocument(policy: ReportPolicy, documents: readonly JsonObject[]): JsonObject | undefined {
  return documents.find((d) => {
    const meta = isJsonObject(d.metadata) ? d.metadata : {};
    return d.kind === policy.kind && meta.name === policy.name && (str(meta.namespace) ?? undefined) === policy.namespace;
  });
}

/** ToPolicyReportResult's `process`: background scan unless the policy turns it off (then admission review, if on). */
function processOf(policy: ReportPolicy, doc: JsonObject | undefined): string {
  if (policy.source === 'MutatingAdmissionPolicy') return 'background scan';
  const spec = doc && isJsonObject(doc.spec) ? doc.spec : {};
  let background: JsonValue | undefined;
  let admission: JsonValue | undefined;
  if (policy.source === 'kyverno') {
    background = spec.background;
    admission = spec.admission;
  } else {
    const evaluation = isJsonObject(spec.evaluation) ? spec.evaluation : {};
    background = isJsonObject(evaluation.background) ? evaluation.background.enabled : undefined;
    admission = isJsonObject(evaluation.admission) ? evaluation.admission.enabled : undefined;
  }
  if (background !== false) return 'background scan';
  return admission !== false ? 'admission review' : '';
}

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low', 'info']);

/** An ObjectReference to the resource, in Go's field order. */
function subject(resource: JsonObject): JsonObject {
  const meta = isJsonObject(resource.metadata) ? resource.metadata : {};
  const ref: JsonObject = { kind: resource.kind ?? '' };
  if (str(meta.namespace)) ref.namespace = meta.namespace;
  if (str(meta.name)) ref.name = meta.name;
  if (str(meta.uid)) ref.uid = meta.uid;
  ref.apiVersion = resource.apiVersion ?? '';
  if (str(meta.resourceVersion)) ref.resourceVersion = meta.resourceVersion;
  return ref;
}

function reportResult(entry: ReportEntry, doc: JsonObject | undefined, seconds: number): JsonObject {
  const { policy } = entry;
  const annotations = doc && isJsonObject(doc.metadata) && isJsonObject(doc.metadata.annotations) ? doc.metadata.annotations : {};
  const scored = annotations['policies.kyverno.io/scored'] !== 'false';
  const out: JsonObject = {
    source: policy.source,
    // cache.MetaNamespaceKeyFunc for Kyverno's policies; a MutatingAdmissionPolicy's result is named by its rule.
    policy: policy.source === 'MutatingAdmissionPolicy' ? entry.rule : policy.namespace ? `${policy.namespace}/${policy.name}` : policy.name,
  };
  if (entry.rule !== '') out.rule = entry.rule;
  const category = str(annotations['policies.kyverno.io/category']);
  if (category) out.category = category;
  const severity = str(annotations['policies.kyverno.io/severity']);
  if (severity && SEVERITIES.has(severity)) out.severity = severity;
  out.timestamp = { seconds, nanos: 0 };
  // An unscored policy's failure is a warning (never for mutate rules, which do not fail).
  out.result = entry.result === 'fail' && !scored ? 'warn' : entry.result;
  if (scored) out.scored = true;
  out.resources = [subject(entry.resource)];
  if (entry.message) out.message = entry.message;
  const properties: JsonObject = {};
  if (entry.binding !== undefined) properties.mapBinding = entry.binding;
  properties.process = processOf(policy, doc);
  out.properties = properties;
  return out;
}

function summary(results: readonly JsonObject[]): JsonObject {
  const counts: Record<ReportStatus, number> = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) counts[r.result as ReportStatus]++;
  return { ...counts };
}

function report(kind: 'ClusterReport' | 'PolicyReport', name: string, namespace: string | undefined, results: JsonObject[]): JsonObject {
  const metadata: JsonObject = { name };
  if (namespace !== undefined) metadata.namespace = namespace;
  metadata.creationTimestamp = null;
  return { apiVersion: 'openreports.io/v1alpha1', kind, metadata, source: '', summary: summary(results), results };
}

/** A copy with every map's keys sorted, as sigs.k8s.io/yaml writes a Go struct (through JSON, then a map). */
function sortedKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

/**
 * The report documents for `entries`: the merged ClusterReport when a cluster-wide policy has results,
 * then a PolicyReport per namespaced policy. Each document is YAML or one line of JSON (json.Marshal), as
 * kyverno's printReport writes it; the caller separates them with `---`.
 */
export function policyReports(entries: readonly ReportEntry[], documents: readonly JsonObject[], format: 'yaml' | 'json', now = Date.now()): string[] {
  const seconds = Math.floor(now / 1000);
  const cluster: JsonObject[] = [];
  const namespaced = new Map<string, { policy: ReportPolicy; results: JsonObject[] }>();
  // Each policy's document looked up once, however many resources it has results for.
  const docs = new Map<string, JsonObject | undefined>();
  for (const entry of entries) {
    const { source, kind, namespace, name } = entry.policy;
    const docKey = `${source}/${kind}/${namespace ?? ''}/${name}`;
    if (!docs.has(docKey)) docs.set(docKey, policyDocument(entry.policy, documents));
    const result = reportResult(entry, docs.get(docKey), seconds);
    if (entry.policy.namespace === undefined) {
      cluster.push(result);
      continue;
    }
    const key = `${entry.policy.kind}/${entry.policy.namespace}/${entry.policy.name}`;
    const group = namespaced.get(key) ?? { policy: entry.policy, results: [] };
    group.results.push(result);
    namespaced.set(key, group);
  }
  const reports: JsonObject[] = [];
  if (cluster.length > 0) reports.push(report('ClusterReport', 'merged', undefined, cluster));
  for (const { policy, results } of namespaced.values()) reports.push(report('PolicyReport', policy.name, policy.namespace, results));
  return reports.map((d) => (format === 'json' ? JSON.stringify(d) + '\n' : yamlOutput(sortedKeys(d))));
}
