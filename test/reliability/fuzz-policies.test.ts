/**
 * A seeded, bounded fuzz sweep of broken policies: real policies (the bundled set, the 50-policy bench set,
 * the Kyverno fixtures and vectors, the kyverno/policies library copies) each changed in one to three places, as a
 * half-written or mistyped policy would be: a member deleted, retyped (a number, text, a list, a map, null,
 * a boolean), a list item duplicated or dropped, a text cut short or given an expression's fragment. Each
 * is loaded beside an intact policy and reviews of real resources are answered through the app. Whatever
 * the change, the set builds without throwing, a problem names its document, the intact policy still
 * labels every Pod the broken one does not deny, and no answer is a 500 (an error escaping a policy's evaluation),
 * an error log line or later than the deadline plus a second. Then the kube-apiserver vectors: one document
 * of a vector's whole set (a policy, a binding, a param, a Namespace) broken the same ways, the vector's
 * request answered as the server answers it: 200 in time, no error, whatever became of the set.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_POLICY_SEEDS=1,2,3 and FUZZ_POLICY_CASES=n sweep more.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type LogRecord } from '../../src/server/index.js';
import { ROOT } from '../node/built.js';
import { documents, vectorReview } from '../fixtures/map-vectors.js';
import { loadVectors } from '../map/helpers.js';
import { Prng, seedsFrom } from './helpers/prng.js';
import { breakDocument } from './helpers/document-mutations.js';
import { examplePolicyFiles, fixturePolicyFiles, INTACT_LABELER, libraryPolicyFiles, libraryResources, POLICY_KINDS, reviewOf, yamlFiles, yamlObjects, type Obj } from './helpers/library-corpus.js';

const LIMITS = { maxBodyBytes: 1 << 20, maxJsonDepth: 1000, reviewDeadlineMs: 2000 };
const SEEDS = seedsFrom(process.env.FUZZ_POLICY_SEEDS, [0xb0c1, 0xb0c2]);
const CASES_PER_SEED = Number(process.env.FUZZ_POLICY_CASES ?? 300);

/** The policies mutated: every policy document of the sources named above. */
function policyDocuments(): Obj[] {
  const files = [
    ...examplePolicyFiles(),
    ...fixturePolicyFiles(),
    ...libraryPolicyFiles(),
  ];
  return [...files.flatMap(yamlObjects), ...kyvernoVectors().flatMap((v) => v.policies ?? [])].filter((d) => POLICY_KINDS.has(d.kind));
}

/** The Kyverno and MutatingPolicy vectors (test/vectors/kyverno, test/vectors/mpol): their policies and resources. */
function kyvernoVectors(): Obj[] {
  return ['test/vectors/kyverno', 'test/vectors/mpol'].flatMap((dir) => yamlFiles(join(ROOT, dir)).flatMap((f) => yamlObjects(f.path)));
}

/** Reviews (CREATE) of the fixture Pod, of the libraries' test resources and of the Kyverno vectors' resources. */
function reviews(): Obj[] {
  const podCreate = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8')) as Obj;
  const resources = [...libraryResources(), ...kyvernoVectors().flatMap((v) => (v.resource && typeof v.resource.kind === 'string' ? [v.resource as Obj] : []))];
  return [podCreate, ...resources.map((object, i) => {
    const review = reviewOf(object);
    review.request.uid = `fuzz-${i}`;
    return review;
  })];
}

type Fetch = (request: Request) => Response | Promise<Response>;

function patchOf(body: Obj): string {
  return body.response?.patch ? Buffer.from(body.response.patch, 'base64').toString('utf8') : '';
}

/** One sweep's cases: what they saw, their failures (collected, not thrown), the log lines of the case in progress. */
class Sweep {
  readonly seen: Record<string, number> = {};
  readonly failures: string[] = [];
  private readonly logs: LogRecord[] = [];
  readonly logger = (record: LogRecord): void => void this.logs.push(record);

  count(what: string): void {
    this.seen[what] = (this.seen[what] ?? 0) + 1;
  }

  /** Runs one case; a failed expectation, or an error log line it left, is its failure. */
  async run(label: string, check: () => Promise<void>): Promise<void> {
    try {
      await check();
      const errors = this.logs.splice(0).filter((l) => l.level === 'error' || Number(l.status) >= 500);
      expect(errors.map((l) => JSON.stringify(l).slice(0, 300)), label).toEqual([]);
    } catch (err) {
      this.logs.length = 0;
      this.failures.push(String((err as Error).message).split('\n').slice(0, 5).join('\n'));
    }
  }

  /** No failure, and at least `min` cases of each of `kinds` (so that the sweep is not vacuous). */
  expectClean(kinds: Record<string, number>): void {
    expect(this.failures.join('\n\n')).toBe('');
    for (const [what, min] of Object.entries(kinds)) expect(this.seen[what] ?? 0, JSON.stringify(this.seen)).toBeGreaterThanOrEqual(min);
  }
}

/** POSTs `review` and checks what every answer must be: 200, in time, its uid. Returns the reply. */
async function answerChecked(app: Fetch, review: Obj, label: string): Promise<{ body: Obj; shown: string }> {
  const started = performance.now();
  const res = await app(new Request('http://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(review) }));
  const body = (await res.json()) as Obj;
  const ms = performance.now() - started;
  const shown = `${label}\n  review ${review.request.uid}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`;
  expect(res.status, shown).toBe(200);
  expect(JSON.stringify(body), shown).not.toContain('internal error');
  expect(ms, shown).toBeLessThan(LIMITS.reviewDeadlineMs + 1000);
  expect(body.response?.uid, shown).toBe(review.request.uid);
  return { body, shown };
}

describe('fuzzed policies: broken beside intact', () => {
  const documents = policyDocuments();
  const all = reviews();
  const pods = all.filter((r) => r.request.kind.kind === 'Pod');

  it('has real policies and reviews to work with', () => {
    expect(documents.length).toBeGreaterThan(100);
    expect(pods.length).toBeGreaterThan(20);
  });

  it.each(SEEDS.map((seed) => [seed]))(`answers reviews through ${CASES_PER_SEED} broken policies of seed %i, the intact one still applied`, async (seed) => {
    const rng = new Prng(seed);
    const sweep = new Sweep();
    for (let i = 0; i < CASES_PER_SEED && sweep.failures.length < 10; i++) {
      const doc = structuredClone(documents[rng.int(documents.length)]);
      const label = `seed ${seed} case ${i}: ${doc.kind}/${doc.metadata?.name}: ${breakDocument(rng, doc).join('; ')}`;
      const reviewed = [pods[rng.int(pods.length)], all[rng.int(all.length)]];
      await sweep.run(label, async () => {
        const set = buildPolicySet([parseDocuments('broken.json', JSON.stringify([doc])), parseDocuments('intact.json', JSON.stringify([INTACT_LABELER]))]);
        for (const p of set.problems) expect(p.source, label).toBe('broken.json');
        for (const p of set.problems) expect(p.message, label).not.toContain('internal error');
        sweep.count(set.problems.some((p) => p.effect === 'ignored') ? 'refused' : set.problems.length > 0 ? 'kept with problems' : 'kept');
        const app = createApp({ policies: fixedPolicySet(set, 'fuzz'), limits: LIMITS, logger: sweep.logger }).app.fetch;
        for (const review of reviewed) {
          const { body, shown } = await answerChecked(app, review, label);
          const patch = patchOf(body);
          const others = patch ? (JSON.parse(patch) as unknown[]).filter((op) => !JSON.stringify(op).includes('fuzz-intact')) : [];
          sweep.count(!body.response.allowed ? 'denied' : others.length > 0 ? 'patched by more than the intact policy' : 'allowed');
          // The intact policy labels every Pod that the broken one does not deny.
          if (review.request.kind.kind === 'Pod' && body.response.allowed) expect(patch, shown).toContain('fuzz-intact');
        }
      });
    }
    // Not a vacuous sweep: broken policies refused, others kept and applied, some denying.
    const some = Math.ceil(CASES_PER_SEED / 100);
    sweep.expectClean({ refused: some, kept: some, denied: some, 'patched by more than the intact policy': some });
    expect(({} as Obj).polluted).toBeUndefined();
  }, 120_000);
});

/** The kube-apiserver vectors whose sets are whole (policies, bindings, params, namespaces) and end to end. */
const MAP_VECTOR_FILES = ['mutation/applyconfiguration.yaml', 'mutation/dispatcher.yaml', 'mutation/jsonpatch.yaml', 'mutation/plugin.yaml', 'integration/e2e.yaml', 'integration/integration.yaml'];

describe('fuzzed MutatingAdmissionPolicy sets: one document of a kube-apiserver vector broken', () => {
  it.each(SEEDS.map((seed) => [seed]))(`answers each vector's request with one of its documents broken, ${CASES_PER_SEED} cases of seed %i`, async (seed) => {
    const vectors = MAP_VECTOR_FILES.flatMap((file) => loadVectors(file)).filter((v) => v.request);
    expect(vectors.length).toBeGreaterThan(50);
    const rng = new Prng(seed);
    const sweep = new Sweep();
    for (let i = 0; i < CASES_PER_SEED && sweep.failures.length < 10; i++) {
      const v = vectors[rng.int(vectors.length)];
      const docs = documents(v);
      if (docs.length === 0) continue;
      const broken = docs[rng.int(docs.length)];
      const doc = (broken.value = structuredClone(broken.value) as Obj);
      const label = `seed ${seed} case ${i}: ${v.name}: ${doc.kind}/${doc.metadata?.name}: ${breakDocument(rng, doc).join('; ')}`;
      await sweep.run(label, async () => {
        // As the server builds it: a policy that does not compile is refused.
        const set = buildPolicySet(docs);
        sweep.count(set.problems.length > 0 ? 'with problems' : 'clean');
        for (const p of set.problems) expect(p.message, label).not.toContain('internal error');
        const app = createApp({ policies: fixedPolicySet(set, 'fuzz'), limits: LIMITS, logger: sweep.logger }).app.fetch;
        const { body } = await answerChecked(app, vectorReview(v), label);
        sweep.count(!body.response.allowed ? 'denied' : body.response.patch ? 'patched' : 'allowed');
      });
    }
    // Most broken documents are refused (validation and compilation are strict), the rest still run.
    const some = Math.ceil(CASES_PER_SEED / 100);
    sweep.expectClean({ 'with problems': some, clean: some, patched: some, allowed: some, denied: 1 });
  }, 120_000);
});
