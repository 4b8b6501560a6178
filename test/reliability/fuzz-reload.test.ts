/**
 * A seeded, bounded fuzz sweep of reloads: a policy folder of two files (a real policy file, from the
 * kyverno/policies library, the bench's MutatingAdmissionPolicies with their bindings or the bundled examples,
 * and an intact policy that labels every Pod) is loaded by the directory source, and the same two files as
 * objects under a prefix by the S3 source (s3rver on loopback) and by the R2 source (a real R2 bucket of
 * miniflare, its handle given to the source in Node: helpers/miniflare-r2.ts), then the real file is replaced
 * by a broken version (its text cut anywhere, as a half-written upload leaves it; emptied; or one of its
 * documents changed in one to three places, helpers/document-mutations.ts) and the folder read again. Then a review gets either what
 * it got before (the new version was refused, and the last good one stays in force) or exactly what a fresh
 * load of the new folder gives (the new version was taken): never a mix, never the intact policy lost, never
 * a 500.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_RELOAD_SEEDS=1,2,3 and FUZZ_RELOAD_CASES=n sweep more
 * (the S3 and R2 stores run a third of the cases each: each case is a few round trips to s3rver or workerd).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createApp, type LogRecord } from '../../src/server/index.js';
import { PolicySetRefresher, r2Source, type PolicySource } from '../../src/sources/index.js';
import { directorySource, s3Source } from '../../src/sources/node/index.js';
import { BUCKET, startS3, type TestS3 } from '../sources/helpers.js';
import { breakDocument } from './helpers/document-mutations.js';
import { startR2, type TestR2 } from './helpers/miniflare-r2.js';
import { examplePolicyFiles, INTACT_LABELER, libraryPolicyFiles, libraryResources, POLICY_KINDS, reviewOf, yamlObjects, type Obj } from './helpers/library-corpus.js';
import { Prng, seedsFrom } from './helpers/prng.js';

const SEEDS = seedsFrom(process.env.FUZZ_RELOAD_SEEDS, [0x4e10ad]);
const CASES_PER_SEED = Number(process.env.FUZZ_RELOAD_CASES ?? 150);

const INTACT = stringify(INTACT_LABELER);

const root = mkdtempSync(join(tmpdir(), 'amender-fuzz-reload-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Where a case's files live: a folder for the directory source, or a prefix in an S3 or R2 bucket. */
interface Store {
  name: string;
  write(place: string, file: string, text: string): Promise<void>;
  source(place: string): PolicySource;
  remove(place: string): Promise<void>;
}

const folders: Store = {
  name: 'directory',
  write: async (place, file, text) => {
    mkdirSync(join(root, place), { recursive: true });
    writeFileSync(join(root, place, file), text);
  },
  source: (place) => directorySource({ uri: `file://${join(root, place)}`, path: join(root, place) }),
  remove: async (place) => rmSync(join(root, place), { recursive: true, force: true }),
};

function bucket(s3: () => TestS3): Store {
  return {
    name: 's3',
    write: (place, file, text) => s3().put(`${place}/${file}`, text),
    source: (place) => s3Source({ uri: `s3://${BUCKET}/${place}`, client: s3().client, bucket: BUCKET, prefix: place }),
    remove: async (place) => {
      await s3().remove(`${place}/intact.yaml`);
      await s3().remove(`${place}/policy.yaml`);
    },
  };
}

function r2Bucket(r2: () => TestR2): Store {
  return {
    name: 'r2',
    write: async (place, file, text) => {
      await r2().bucket.put(`${place}/${file}`, text);
    },
    source: (place) => r2Source({ uri: `r2://${r2().binding}/${place}`, bucket: r2().bucket, prefix: place }),
    remove: (place) => r2().bucket.delete([`${place}/intact.yaml`, `${place}/policy.yaml`]),
  };
}

/** The intact policy and `text` as policy.yaml at `place`, loaded; with the app answering from it. */
async function loaded(store: Store, place: string, text: string, logger: (r: LogRecord) => void) {
  await store.write(place, 'intact.yaml', INTACT);
  await store.write(place, 'policy.yaml', text);
  const refresher = new PolicySetRefresher({ name: 'fuzz', sources: [store.source(place)], intervalMs: 0 });
  await refresher.refresh();
  return { refresher, fetch: createApp({ policies: refresher.provider, logger }).app.fetch };
}

/** The reply's response, without what differs between two answers of the same review (nothing but the uid). */
async function answer(fetch: (r: Request) => Response | Promise<Response>, review: Obj): Promise<{ status: number; response: Obj }> {
  const res = await fetch(new Request('http://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(review) }));
  const body = (await res.json()) as Obj;
  return { status: res.status, response: body.response ?? body };
}

let s3: TestS3;
let r2: TestR2;
beforeAll(async () => {
  // Each assigned as soon as it runs, so that one failing to start leaves the other to afterAll.
  await Promise.all([startS3().then((s) => (s3 = s)), startR2().then((r) => (r2 = r))]);
}, 60_000);
afterAll(async () => {
  await Promise.all([s3?.dispose(), r2?.dispose()]);
});

describe.each([
  { store: folders, cases: CASES_PER_SEED },
  { store: bucket(() => s3), cases: Math.ceil(CASES_PER_SEED / 3) },
  { store: r2Bucket(() => r2), cases: Math.ceil(CASES_PER_SEED / 3) },
])('fuzzed reloads from $store.name: a policy file replaced by a broken version', ({ store, cases }) => {
  // Whole files: a library policy, a bench MutatingAdmissionPolicy with its binding, a bundled example.
  const files = [...libraryPolicyFiles(), ...examplePolicyFiles()]
    .map((path) => yamlObjects(path))
    .filter((docs) => docs.length > 0 && docs.every((d) => POLICY_KINDS.has(d.kind)));
  const pods = libraryResources().filter((o) => o.kind === 'Pod').map((o) => reviewOf(o));

  it.each(SEEDS.map((seed) => [seed]))(`keeps the last good version or takes the new one whole, ${cases} cases of seed %i`, async (seed) => {
    expect(files.length).toBeGreaterThan(100);
    expect(pods.length).toBeGreaterThan(20);
    const rng = new Prng(seed);
    const failures: string[] = [];
    const seen: Record<string, number> = {};
    const logs: LogRecord[] = [];
    for (let i = 0; i < cases && failures.length < 10; i++) {
      const docs = files[rng.int(files.length)];
      const good = docs.map((d) => stringify(d)).join('---\n');
      const review = pods[rng.int(pods.length)];
      let broken: string;
      let what: string;
      const how = rng.int(10);
      if (how < 4) {
        const cut = rng.int(good.length);
        broken = good.slice(0, cut);
        what = `cut at ${cut} of ${good.length}`;
      } else if (how === 4) {
        broken = '';
        what = 'emptied';
      } else {
        const changed = structuredClone(docs);
        const at = rng.int(changed.length);
        what = `${changed[at].kind}: ${breakDocument(rng, changed[at]).join('; ')}`;
        broken = changed.map((d) => stringify(d)).join('---\n');
      }
      const label = `seed ${seed} case ${i}: ${what}`;
      const place = `${seed}-${i}`;
      const fresh = `${seed}-${i}-fresh`;
      try {
        const server = await loaded(store, place, good, (r) => logs.push(r));
        if (server.refresher.provider().set?.problems.some((p) => p.source.endsWith('policy.yaml'))) {
          seen.skipped = (seen.skipped ?? 0) + 1; // the good version itself needs a cluster: not a reload case
          continue;
        }
        const before = await answer(server.fetch, review);
        // A store that could not be read shows as a 503 in both answers: the failure says why.
        const unreadable = [...server.refresher.provider().sourceErrors];
        await store.write(place, 'policy.yaml', broken);
        await server.refresher.refresh();
        const after = await answer(server.fetch, review);
        const refused = (server.refresher.provider().set?.problems ?? []).some((p) => p.source.endsWith('policy.yaml') && p.effect === 'ignored');
        unreadable.push(...server.refresher.provider().sourceErrors);
        const shown = `${label}\n  before ${JSON.stringify(before).slice(0, 300)}\n  after ${JSON.stringify(after).slice(0, 300)}${unreadable.length > 0 ? `\n  source errors: ${unreadable.join('; ').slice(0, 400)}` : ''}`;
        expect(after.status, shown).toBe(200);
        expect(JSON.stringify(after), shown).not.toContain('internal error');
        if (refused) {
          seen.refused = (seen.refused ?? 0) + 1;
          expect(after, `${shown}\n  (refused: the last good version stays)`).toEqual(before);
        } else {
          seen.taken = (seen.taken ?? 0) + 1;
          const other = await loaded(store, fresh, broken, (r) => logs.push(r));
          expect(after, `${shown}\n  (taken: as a fresh load of it)`).toEqual(await answer(other.fetch, review));
        }
        if (after.response.allowed) expect(after.response.patch ? Buffer.from(after.response.patch, 'base64').toString() : '', shown).toContain('fuzz-intact');
        const errors = logs.splice(0).filter((l) => l.level === 'error' || Number(l.status) >= 500);
        expect(errors.map((l) => JSON.stringify(l).slice(0, 300)), label).toEqual([]);
      } catch (err) {
        failures.push(String((err as Error).message).split('\n').slice(0, 6).join('\n'));
      } finally {
        logs.length = 0;
        await store.remove(place);
        await store.remove(fresh);
      }
    }
    expect(failures.join('\n\n')).toBe('');
    expect(seen.refused ?? 0, JSON.stringify(seen)).toBeGreaterThan(cases / 10);
    // Far fewer are taken than refused (4 of 100 cases for seed 31, which failed a bound of cases / 20):
    // the bound asks only that both outcomes were checked.
    expect(seen.taken ?? 0, JSON.stringify(seen)).toBeGreaterThan(cases / 50);
  }, 120_000);
});
