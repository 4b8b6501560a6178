/**
 * The 4 KB Pod review (suite 35's) against every Kyverno policy of the kyverno/policies library kept in
 * test/kyverno-library, as a platform team installs the library: not a goal, a figure of how the engine
 * scales with real policies. Reported with its ratio to `JSON.parse` + `JSON.stringify` of the same review.
 * A second row: a node Lease UPDATE against the same policies, which match none of it (what a cluster
 * sends most): the cost of a policy set a review does not match.
 *
 * A suite of its own, late in the order: run in a process before other engine suites, 44 policies of every
 * shape leave the engine's code with inline caches that have seen them all (suite 35's goal row read 3.36×
 * after them against 3.20× before, the same code), and its garbage lands on whatever is timed next. So the
 * baseline is timed before the first library review, and no in-process suite runs after this one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { pod4k } from '../fixtures.js';
import { runningNode } from '../nodes.js';
import { formatNs, measureAsync, table } from '../lib.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { createPatch } from '../../src/jsonpatch/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';

const LIBRARY = new URL('../../test/kyverno-library/', import.meta.url).pathname;

/** The policy files under `dir`, not the test resources beside them (`.kyverno-test`). */
function policyFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : policyFiles(path);
    return entry.name.endsWith('.yaml') ? [path] : [];
  });
}

/** Every Kyverno policy of the library copy in test/kyverno-library, compiled; in file order. */
export function libraryPolicies(): readonly CompiledKyvernoPolicy[] {
  const out: CompiledKyvernoPolicy[] = [];
  for (const file of policyFiles(LIBRARY).sort()) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const value = doc.toJS() as JsonObject | null;
      if (value?.kind !== 'ClusterPolicy' && value?.kind !== 'Policy') continue;
      const r = compileKyvernoPolicy(value);
      if (!r.ok) throw new Error(`${file}: ${JSON.stringify(r.problems)}`);
      out.push(r.policy);
    }
  }
  return Object.freeze(out);
}

const SAMPLING = { minMillis: 2000, warmup: 100, minSamples: 200 };

/** A node's Lease renewal (UPDATE with oldObject), the request the API server sends most. */
function leaseReview(): JsonObject {
  const lease = (resourceVersion: string, renewTime: string): JsonObject => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'node-1', namespace: 'kube-node-lease', resourceVersion, uid: 'a9f2c1e4-0000-4000-8000-000000000002' },
    spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime },
  });
  const review = pod4k() as unknown as { request: JsonObject };
  Object.assign(review.request, {
    kind: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    resource: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    requestKind: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    requestResource: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    name: 'node-1',
    namespace: 'kube-node-lease',
    operation: 'UPDATE',
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
    object: lease('99', '2026-12-07T10:00:00.000000Z'),
    oldObject: lease('98', '2026-12-07T09:59:50.000000Z'),
  });
  return review as unknown as JsonObject;
}

export async function run(): Promise<void> {
  const text = JSON.stringify(pod4k());
  const leaseText = JSON.stringify(leaseReview());
  const baseline = await measureAsync(async () => JSON.stringify(JSON.parse(text)), { ...SAMPLING, warmup: 300 });
  const leaseBaseline = await measureAsync(async () => JSON.stringify(JSON.parse(leaseText)), { ...SAMPLING, warmup: 300 });
  const library = libraryPolicies();
  const reviewOf = async (reviewText: string) => {
    const parsed = JSON.parse(reviewText) as { request: { object: JsonValue } & JsonObject };
    const result = await runKyvernoPolicies(library, { request: parsed.request as never, namespaceLabels: {} });
    return { result, patch: JSON.stringify(createPatch(parsed.request.object, result.object)) };
  };
  const rows = [];
  for (const [name, reviewText, base] of [['4 KB Pod CREATE', text, baseline], ['node Lease UPDATE', leaseText, leaseBaseline]] as const) {
    const rules = (await reviewOf(reviewText)).result.policies.flatMap((p) => p.rules);
    const stats = await measureAsync(() => reviewOf(reviewText), SAMPLING);
    rows.push({
      review: name,
      policies: library.length,
      rules: `${rules.length} matched (${rules.filter((r) => r.status === 'applied').length} applied)`,
      bytes: reviewText.length,
      median: formatNs(stats.median),
      p99: formatNs(stats.p99),
      'parse+stringify': formatNs(base.median),
      ratio: (stats.median / base.median).toFixed(2),
    });
  }
  table(`kyverno/policies library: reviews against ${library.length} policies (not a goal), ${runningNode()}`, rows);
}
