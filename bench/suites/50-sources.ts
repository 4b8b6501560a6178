/**
 * Building a policy set of 50 MutatingAdmissionPolicies (each: a matchCondition, a variable, a JSONPatch
 * mutation) cold — the CEL program cache emptied first, as in a new process — against rebuilding it after
 * a reload where one policy changed (the cache holds the other 49 policies' programs). Measured twice:
 * `buildPolicySet` alone, and a whole refresh through a PolicySetRefresher over an in-memory source
 * (list, fetch and parse the changed document, build, swap). "Cold" is the CEL cache; the JIT is warmed
 * by a first pass in both cases.
 */
import { configureProgramCache, programCacheStats } from '../../src/cel/index.js';
import { buildPolicySet, parseDocuments, type ParsedSource } from '../../src/policyset/index.js';
import { PolicySetRefresher, type PolicySource } from '../../src/sources/index.js';
import { formatNs, summarize, table, type Stats } from '../lib.js';

const POLICIES = 50;
const SAMPLES = 30;
const CACHE_CAPACITY = programCacheStats().capacity;

function policy(i: number, revision: number): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: policy-${i}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
  matchConditions:
    - name: not-excluded
      expression: '!has(object.metadata.labels) || !("skip-${i}" in object.metadata.labels)'
  variables:
    - name: team
      expression: 'has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels["team"] : "team-${i}-r${revision}"'
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '[JSONPatch{op: "add", path: "/metadata/annotations/policy-${i}", value: variables.team + "-${revision}"}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: policy-${i}
spec:
  policyName: policy-${i}
`;
}

/** An in-memory store: name → text, version bumped on each write. */
class MemorySource implements PolicySource {
  readonly uri = 'memory://bench';
  private readonly docs = new Map<string, { text: string; version: number }>();
  put(name: string, text: string): void {
    this.docs.set(name, { text, version: (this.docs.get(name)?.version ?? 0) + 1 });
  }
  async list() {
    return [...this.docs].map(([name, d]) => ({ name, label: name, version: String(d.version) }));
  }
  async fetch(entry: { name: string }, options: { ifNoneMatch?: string }) {
    const d = this.docs.get(entry.name);
    if (!d) return { status: 'gone' as const };
    if (options.ifNoneMatch === String(d.version)) return { status: 'not-modified' as const };
    return { status: 'fetched' as const, version: String(d.version), text: d.text };
  }
}

async function sample(n: number, fn: (i: number) => Promise<void> | void): Promise<Stats> {
  const ns: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    ns.push(Number(process.hrtime.bigint() - t0));
  }
  return summarize(ns);
}

function row(what: string, s: Stats, misses: number): Record<string, string | number> {
  return { what, median: formatNs(s.median), p99: formatNs(s.p99), 'CEL compiles per build': misses };
}

export async function run(): Promise<void> {
  // The first pass warms the JIT, so every row compares CEL-cache effects rather than which code ran first.
  await measureAll(5, false);
  await measureAll(SAMPLES, true);
}

async function measureAll(samples: number, print: boolean): Promise<void> {
  const parsed: ParsedSource[] = Array.from({ length: POLICIES }, (_, i) => parseDocuments(`policy-${i}.yaml`, policy(i, 0)));
  const check = buildPolicySet(parsed);
  if (check.problems.length > 0 || check.counts.mutatingAdmissionPolicies !== POLICIES) {
    throw new Error(`bench policies do not load: ${JSON.stringify(check.problems.slice(0, 3))}`);
  }
  const misses = () => programCacheStats().misses;

  // buildPolicySet alone.
  let coldMisses = 0;
  const cold = await sample(samples, () => {
    configureProgramCache(CACHE_CAPACITY); // a new process: nothing compiled yet
    const m0 = misses();
    buildPolicySet(parsed);
    coldMisses = misses() - m0;
  });
  buildPolicySet(parsed); // warm
  let reloadMisses = 0;
  const reload = await sample(samples, (i) => {
    const changed = [...parsed];
    changed[7] = parseDocuments('policy-7.yaml', policy(7, i + 1));
    const m0 = misses();
    buildPolicySet(changed);
    reloadMisses = misses() - m0;
  });

  // A whole refresh through the refresher.
  const source = new MemorySource();
  for (let i = 0; i < POLICIES; i++) source.put(`policy-${i}.yaml`, policy(i, 0));
  let refreshColdMisses = 0;
  const refreshCold = await sample(samples, async () => {
    configureProgramCache(CACHE_CAPACITY);
    const r = new PolicySetRefresher({ name: 'bench', sources: [source], intervalMs: 0 });
    const m0 = misses();
    const result = await r.refresh();
    if (result.outcome !== 'applied') throw new Error(`refresh ${result.outcome}: ${result.errors.join('; ')}`);
    refreshColdMisses = misses() - m0;
  });
  const warm = new PolicySetRefresher({ name: 'bench', sources: [source], intervalMs: 0 });
  await warm.refresh();
  let refreshMisses = 0;
  const refreshOne = await sample(samples, async (i) => {
    source.put('policy-7.yaml', policy(7, 1000 + i));
    const m0 = misses();
    const result = await warm.refresh();
    if (result.outcome !== 'applied' || result.fetched !== 1) throw new Error(`reload: ${JSON.stringify(result)}`);
    refreshMisses = misses() - m0;
  });
  const unchanged = await sample(samples, async () => {
    const result = await warm.refresh();
    if (result.outcome !== 'unchanged') throw new Error(`expected unchanged, got ${result.outcome}`);
  });

  if (!print) return;
  table(`Policy set of ${POLICIES} MutatingAdmissionPolicies: cold build vs reload with one policy changed (${SAMPLES} samples each)`, [
    row('buildPolicySet, cold (CEL cache empty)', cold, coldMisses),
    row('buildPolicySet, 1 policy changed (cache warm)', reload, reloadMisses),
    row('refresh, cold (list + fetch + parse 50 + build)', refreshCold, refreshColdMisses),
    row('refresh, 1 policy changed (fetch + parse 1 + build)', refreshOne, refreshMisses),
    row('refresh, nothing changed (list only, no build)', unchanged, 0),
  ]);
  console.log(`\nratio cold / one changed: buildPolicySet ${(cold.median / reload.median).toFixed(1)}×, refresh ${(refreshCold.median / refreshOne.median).toFixed(1)}×`);
}
