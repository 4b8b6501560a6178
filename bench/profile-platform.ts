/**
 * Reviews a platform team sends, against the policy sets it runs: `node --import ./bench/loader/register.mjs
 * bench/profile-platform.ts REVIEW-SET [rounds] [warm-up rounds]` answers (`answerReviewText`) one review
 * `rounds` times after a warm-up and prints its size, its reply's and a hash of the reply (the same hash
 * before and after an engine change: the same reply). MODE=floor runs JSON.parse + JSON.stringify of the
 * same review text instead (the baseline of the engine rows). For instruction counts run it under
 * `valgrind --tool=cachegrind` with two round counts and subtract (the marginal count of the extra rounds);
 * `--cpu-prof` shows where the time goes (after an await a review's samples hang off the microtask, not
 * off answerReviewText). Not part of `npm run bench`.
 *
 * REVIEW: pod (the 4 KB Pod of bench/fixtures.ts, CREATE), podupd (UPDATE with oldObject), poddel (DELETE),
 * deploy (a Deployment of NC=30 containers, 35 KB), deployupd, cm (a 200 KB ConfigMap of text), cmupd,
 * cmsmall, lease (a node Lease UPDATE: what a cluster sends most, matched by no policy).
 * SET: bundled (policies/), bench (suite 05's ten MAPs), filler (bundled + 300 MAPs on custom resources
 * + 100 ClusterPolicies on other kinds: policies a review does not match), library (every policy of
 * test/kyverno-library), platform (bundled + library + filler). Each set holds the Namespace `shop`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pod4k } from './fixtures.js';
import { generatedPolicies } from './suites/05-review.js';
import { buildPolicySet, parseDocuments, type ParsedSource } from '../src/policyset/index.js';
import { loadPolicies } from '../src/cli/load.js';
import { nodeCliIO } from '../src/cli/node-io.js';
import { answerReviewText } from '../src/server/index.js';

const ROOT = process.env.AMENDER_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '..');
const io = nodeCliIO(ROOT);
const w = process.argv[2] ?? 'pod-platform';
const rounds = Number(process.argv[3] ?? 100);
const warm = Number(process.argv[4] ?? 200);

const KINDS = ['Service', 'Ingress', 'Job', 'CronJob', 'Secret', 'ServiceAccount', 'PersistentVolumeClaim', 'StatefulSet', 'DaemonSet', 'NetworkPolicy'];
function filler(nMap: number, nKyv: number): string {
  const docs: string[] = [];
  for (let i = 0; i < nMap; i++) {
    docs.push(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: fill-${i}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["example${i % 20}.io"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["widgets${i}"]}]
  matchConditions:
    - name: c
      expression: 'has(object.metadata.labels)'
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"fill-${i}": "x"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: fill-${i}}
spec:
  policyName: fill-${i}
`);
  }
  for (let i = 0; i < nKyv; i++) {
    docs.push(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: kfill-${i}}
spec:
  rules:
    - name: r
      match:
        any:
          - resources:
              kinds: ["${KINDS[i % KINDS.length]}"]
              names: ["app-${i}-*"]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              kfill-${i}: "y"
`);
  }
  return docs.join('---\n');
}

function container(i: number) {
  const c = pod4k().request.object.spec.containers[0];
  c.name = `c${i}`;
  c.image = `registry.example.com/team/app-${i}:1.${i}.0`;
  return c;
}
function deployment(n: number) {
  const pod = pod4k().request.object;
  pod.spec.containers = Array.from({ length: n }, (_, i) => container(i));
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web', team: 'payments' } },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: pod.spec } },
  };
}
function configMap(kb: number) {
  const data: Record<string, string> = {};
  for (let i = 0; i < kb * 2; i++) data[`key-${i}.properties`] = `value ${i} `.repeat(50).slice(0, 480);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'shop', labels: { app: 'web' } }, data };
}
function review(obj: any, operation: string, old: any, kind: any, resource: any) {
  const r = pod4k();
  r.request.kind = kind; r.request.requestKind = kind; r.request.resource = resource; r.request.requestResource = resource;
  r.request.operation = operation;
  r.request.object = operation === 'DELETE' ? null : obj;
  r.request.oldObject = old;
  r.request.name = (old ?? obj).metadata.name;
  r.request.options = operation === 'DELETE' ? { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' } : operation === 'UPDATE' ? { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' } : r.request.options;
  return JSON.stringify(r);
}
const PODK = { group: '', version: 'v1', kind: 'Pod' }, PODR = { group: '', version: 'v1', resource: 'pods' };
const DEPK = { group: 'apps', version: 'v1', kind: 'Deployment' }, DEPR = { group: 'apps', version: 'v1', resource: 'deployments' };
const CMK = { group: '', version: 'v1', kind: 'ConfigMap' }, CMR = { group: '', version: 'v1', resource: 'configmaps' };

async function librarySources(): Promise<ParsedSource[]> {
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const lib of ['test/kyverno-library']) {
    for (const cat of readdirSync(join(ROOT, lib)).sort()) {
      if (!statSync(join(ROOT, lib, cat)).isDirectory()) continue;
      for (const p of readdirSync(join(ROOT, lib, cat)).sort()) {
        const f = join(ROOT, lib, cat, p, `${p}.yaml`);
        if (existsSync(f) && !seen.has(p)) { seen.add(p); paths.push(f); }
      }
    }
  }
  const parsed: ParsedSource[] = [];
  for (const path of paths) {
    try { parsed.push(...(await loadPolicies([path], io)).parsed); } catch {}
  }
  return parsed;
}

const setKind = w.split('-')[1] ?? 'platform';
const bundled = (await loadPolicies([join(ROOT, 'policies')], io)).parsed;
let srcs: ParsedSource[] = [];
if (setKind === 'platform') srcs = [...bundled, ...(await librarySources()), parseDocuments('fill.yaml', filler(300, 100))];
else if (setKind === 'bundled') srcs = bundled;
else if (setKind === 'bench') srcs = [...bundled, parseDocuments('bench.yaml', generatedPolicies())];
else if (setKind === 'filler') srcs = [...bundled, parseDocuments('fill.yaml', filler(300, 100))];
else if (setKind === 'library') srcs = await librarySources();
srcs.push(parseDocuments('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: payments}}\n'));
const set = buildPolicySet(srcs);
if (process.env.SHOWSET) { console.log(set.problems.length, 'problems'); for (const p of set.problems.slice(0, 30)) console.log(p.source, p.message.slice(0, 120)); }

const pod = pod4k().request.object;
const pod2 = structuredClone(pod); pod2.metadata.labels.version = 'v2'; pod2.metadata.resourceVersion = '1234';
const dep = deployment(Number(process.env.NC ?? 30));
const cm = configMap(200);
const cm2 = structuredClone(cm); cm2.data['key-7.properties'] = 'changed';
const which = w.split('-')[0];
const text =
  which === 'pod' ? JSON.stringify(pod4k()) :
  which === 'podupd' ? review(pod2, 'UPDATE', pod, PODK, PODR) :
  which === 'poddel' ? review(null, 'DELETE', pod, PODK, PODR) :
  which === 'deploy' ? review(dep, 'CREATE', null, DEPK, DEPR) :
  which === 'deployupd' ? review({ ...dep, spec: { ...dep.spec, replicas: 5 } }, 'UPDATE', dep, DEPK, DEPR) :
  which === 'cm' ? review(cm, 'CREATE', null, CMK, CMR) :
  which === 'cmupd' ? review(cm2, 'UPDATE', cm, CMK, CMR) :
  which === 'lease' ? review({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease', resourceVersion: '99', uid: 'a9f2c1e4-0000-4000-8000-000000000002' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-12-07T10:00:00.000000Z' } }, 'UPDATE', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease', resourceVersion: '98', uid: 'a9f2c1e4-0000-4000-8000-000000000002' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-12-07T09:59:50.000000Z' } }, { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }) :
  which === 'cmsmall' ? review({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small', namespace: 'shop' }, data: { a: 'b' } }, 'CREATE', null, CMK, CMR) :
  (() => { throw new Error(which); })();

const floor = process.env.MODE === 'floor';
const once = async () => floor ? JSON.stringify(JSON.parse(text)) : JSON.stringify((await answerReviewText(text, set, 1000)).body);
const first = await once();
if (process.env.DUMP) console.log(first.slice(0, 3000));
for (let i = 0; i < warm; i++) await once();
const h = createHash('sha256');
h.update(first);
let total = 0;
for (let i = 0; i < rounds; i++) total += (await once()).length;
if (total !== first.length * rounds) throw new Error('reply length changed');
console.log(`${w}${floor ? ' floor' : ''}: ${text.length} B × ${rounds}; reply ${first.length} B; hash ${h.digest('hex').slice(0, 16)}`);
