/**
 * Reviews beyond the bench fixtures, in a loop: `node --import ./bench/loader/register.mjs
 * bench/profile-workloads.ts WORKLOAD [rounds] [warm-up rounds]` answers (`answerReviewText`) every review of
 * one workload `rounds` times after a warm-up, and prints the number of reviews and a hash of every reply
 * text (the same hash before and after an engine change: the same replies). WORKLOAD is `library` (the
 * Kyverno policy libraries of test/kyverno-library and test/kyverno-library-mpol: each folder's policies
 * and the resources of its kyverno-test.yaml, as CREATE reviews), `kvec` (test/vectors/kyverno and
 * test/vectors/mpol: a vector's policies and its resource), `map` (the end-to-end MAP vectors of
 * test/vectors/map) or `bundled` (policies/ and the resources of policies/tests). For instruction counts
 * run it twice under valgrind with different `rounds` and subtract (the marginal count of the extra rounds);
 * `--cpu-prof` shows where the time goes. ONLY=text / EXCEPT=text keep the reviews whose name holds (does not
 * hold) the text, PER_CASE=n prints the slowest reviews (wall clock: noisy on a shared machine), DUMP=1 the
 * reply of each. Counted in Engine speed (bench/JOURNAL.md) as an esbuild bundle of this file written under
 * test/ (so that the MAP vector helpers and `bundled` find their folders), run with AMENDER_ROOT=<checkout>.
 * Not part of `npm run bench`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadPolicies } from '../src/cli/load.js';
import { nodeCliIO } from '../src/cli/node-io.js';
import { reviewForResource } from '../src/cli/resource-review.js';
import { buildPolicySet, type PolicySet, type SourceDocument } from '../src/policyset/index.js';
import { answerReviewText } from '../src/server/index.js';
import type { JsonObject } from '../src/json/index.js';

const ROOT = process.env.AMENDER_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '..');
const workload = process.argv[2] ?? 'library';
const rounds = Number(process.argv[3] ?? 20);
const warm = Number(process.argv[4] ?? 50);

interface Case {
  name: string;
  set: PolicySet;
  text: string;
}

const yamlDocs = (file: string): any[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS({ maxAliasCount: -1 })).filter((d) => d && typeof d === 'object');

function review(object: JsonObject, documents: readonly JsonObject[], operation = 'CREATE', oldObject?: JsonObject): string | undefined {
  try {
    return JSON.stringify(reviewForResource({ object, oldObject, operation: operation as never, documents }));
  } catch {
    return undefined;
  }
}

async function library(): Promise<Case[]> {
  const out: Case[] = [];
  const io = nodeCliIO(ROOT);
  for (const lib of ['test/kyverno-library', 'test/kyverno-library-mpol']) {
    for (const category of readdirSync(join(ROOT, lib)).sort()) {
      if (!statSync(join(ROOT, lib, category)).isDirectory()) continue;
      for (const policy of readdirSync(join(ROOT, lib, category)).sort()) {
        const dir = join(ROOT, lib, category, policy, '.kyverno-test');
        const testFile = join(dir, 'kyverno-test.yaml');
        if (!existsSync(testFile)) continue;
        const test = yamlDocs(testFile)[0];
        let loaded;
        try {
          loaded = await loadPolicies((test.policies ?? []).map((p: string) => resolve(dir, p)), io);
        } catch {
          continue;
        }
        for (const r of test.resources ?? []) {
          const file = resolve(dir, r);
          if (!existsSync(file)) continue;
          for (const doc of yamlDocs(file)) {
            const text = review(doc, loaded.documents);
            if (text) out.push({ name: `${category}/${policy}`, set: loaded.set, text });
          }
        }
      }
    }
  }
  return out;
}

function kvec(): Case[] {
  const out: Case[] = [];
  for (const dir of ['test/vectors/kyverno', 'test/vectors/mpol']) {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      if (!name.endsWith('.yaml')) continue;
      for (const v of yamlDocs(join(ROOT, dir, name))) {
        if (!Array.isArray(v.policies) || !v.resource || typeof v.resource !== 'object') continue;
        const docs: SourceDocument[] = [];
        for (const p of [...v.policies, ...(v.bindings ?? []), ...(v.namespaces ?? [])]) docs.push({ source: name, index: docs.length, value: p });
        let set: PolicySet;
        try {
          set = buildPolicySet(docs);
        } catch {
          continue;
        }
        const text = review(v.resource, docs.map((d) => d.value as JsonObject), v.request?.operation ?? 'CREATE', v.request?.oldObject ?? v.oldResource);
        if (text) out.push({ name: `${name}: ${v.name}`, set, text });
      }
    }
  }
  return out;
}

async function map(): Promise<Case[]> {
  const { loadVectors, jsonTextOf } = await import('../test/map/helpers.js');
  const { VECTOR_BUILD_OPTIONS, documents } = await import('../test/fixtures/map-vectors.js');
  const out: Case[] = [];
  const files = ['mutation/applyconfiguration.yaml', 'mutation/compilation.yaml', 'mutation/dispatcher.yaml', 'mutation/jsonpatch.yaml',
    'mutation/plugin.yaml', 'mutation/objects.yaml', 'integration/e2e.yaml', 'integration/integration.yaml',
    'integration/integration-v1beta1.yaml', 'integration/excluded.yaml', 'integration/extra.yaml'];
  for (const file of files) {
    for (const v of loadVectors(file)) {
      const r = v.request;
      const set = buildPolicySet(documents(v), VECTOR_BUILD_OPTIONS);
      const request = {
        uid: 'vector', kind: r.kind, resource: r.resource, subResource: r.subResource ?? '', name: r.name ?? '',
        namespace: r.namespace ?? '', operation: r.operation, userInfo: r.userInfo ?? {}, object: r.object ?? null,
        oldObject: r.oldObject ?? null, dryRun: r.dryRun ?? false,
      };
      out.push({ name: `${file}: ${v.name}`, set, text: jsonTextOf({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }) });
    }
  }
  return out;
}

async function bundled(): Promise<Case[]> {
  const loaded = await loadPolicies(['bundled'], nodeCliIO(ROOT));
  const out: Case[] = [];
  for (const name of ['pod.yaml', 'pod.expected.yaml']) {
    for (const doc of yamlDocs(join(ROOT, 'policies/tests/all', name))) {
      const text = review(doc, loaded.documents);
      if (text) out.push({ name, set: loaded.set, text });
    }
  }
  return out;
}

const all = workload === 'library' ? await library() : workload === 'kvec' ? kvec() : workload === 'map' ? await map() : await bundled();
// ONLY=text: the reviews whose name contains it; EXCEPT=text: the others.
const cases = all.filter((c) => (!process.env.ONLY || c.name.includes(process.env.ONLY)) && (!process.env.EXCEPT || !c.name.includes(process.env.EXCEPT)));
const once = async (hash?: ReturnType<typeof createHash>) => {
  for (const c of cases) {
    const answer = await answerReviewText(c.text, c.set, 1000);
    if (hash) hash.update(JSON.stringify(answer.body));
    if (hash && process.env.DUMP) console.log(`${c.name}\t${JSON.stringify(answer.body)}`);
  }
};
for (let i = 0; i < warm; i++) await once();
if (process.env.PER_CASE) {
  // The slowest reviews of the workload (µs per review, over PER_CASE runs each).
  const times = cases.map((c, i) => ({ i, c, t: 0 }));
  for (const x of times) {
    const t0 = performance.now();
    for (let k = 0; k < Number(process.env.PER_CASE); k++) await answerReviewText(x.c.text, x.c.set, 1000);
    x.t = ((performance.now() - t0) * 1000) / Number(process.env.PER_CASE);
  }
  const sum = times.reduce((a, x) => a + x.t, 0);
  for (const x of times.sort((a, b) => b.t - a.t).slice(0, 15)) console.log(`${x.t.toFixed(1)} µs  case ${x.i}: ${x.c.name}`);
  console.log(`all: ${sum.toFixed(1)} µs per round`);
}
const hash = createHash('sha256');
await once(hash);
for (let i = 1; i < rounds; i++) await once();
console.log(`${workload}: ${cases.length} reviews × ${rounds} rounds after ${warm}; replies ${hash.digest('hex').slice(0, 16)}`);
