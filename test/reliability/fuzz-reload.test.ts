/**
 * A seeded, bounded fuzz sweep of reloads: a policy folder of two files (a real policy file, from the
 * kyverno/policies library, the bench's MutatingAdmissionPolicies with their bindings or the bundled examples,
 * and an intact policy that labels every Pod) is loaded by the directory source, then the real file is replaced
 * by a broken version (its text cut anywhere, as a half-written upload leaves it; emptied; or one of its
 * documents changed in one to three places, helpers/document-mutations.ts) and the folder read again. Then a review gets either what
 * it got before (the new version was refused, and the last good one stays in force) or exactly what a fresh
 * load of the new folder gives (the new version was taken): never a mix, never the intact policy lost, never
 * a 500.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_RELOAD_SEEDS=1,2,3 and FUZZ_RELOAD_CASES=n sweep more.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createApp, type LogRecord } from '../../src/server/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import { breakDocument } from './helpers/document-mutations.js';
import { examplePolicyFiles, INTACT_LABELER, libraryPolicyFiles, libraryResources, POLICY_KINDS, reviewOf, yamlObjects, type Obj } from './helpers/library-corpus.js';
import { Prng } from './helpers/prng.js';

const SEEDS = process.env.FUZZ_RELOAD_SEEDS ? process.env.FUZZ_RELOAD_SEEDS.split(',').map(Number) : [0x4e10ad];
const CASES_PER_SEED = Number(process.env.FUZZ_RELOAD_CASES ?? 150);

const INTACT = stringify(INTACT_LABELER);

const root = mkdtempSync(join(tmpdir(), 'amender-fuzz-reload-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding the intact policy and `text` as policy.yaml, loaded; with the app answering from it. */
async function loaded(dir: string, text: string, logger: (r: LogRecord) => void) {
  writeFileSync(join(dir, 'intact.yaml'), INTACT);
  writeFileSync(join(dir, 'policy.yaml'), text);
  const refresher = new PolicySetRefresher({ name: 'fuzz', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });
  await refresher.refresh();
  return { refresher, fetch: createApp({ policies: refresher.provider, logger }).app.fetch };
}

/** The reply's response, without what differs between two answers of the same review (nothing but the uid). */
async function answer(fetch: (r: Request) => Response | Promise<Response>, review: Obj): Promise<{ status: number; response: Obj }> {
  const res = await fetch(new Request('http://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(review) }));
  const body = (await res.json()) as Obj;
  return { status: res.status, response: body.response ?? body };
}

describe('fuzzed reloads: a policy file replaced by a broken version', () => {
  // Whole files: a library policy, a bench MutatingAdmissionPolicy with its binding, a bundled example.
  const files = [...libraryPolicyFiles(), ...examplePolicyFiles()]
    .map((path) => yamlObjects(path))
    .filter((docs) => docs.length > 0 && docs.every((d) => POLICY_KINDS.has(d.kind)));
  const pods = libraryResources().filter((o) => o.kind === 'Pod').map((o) => reviewOf(o));

  it.each(SEEDS.map((seed) => [seed]))(`keeps the last good version or takes the new one whole, ${CASES_PER_SEED} cases of seed %i`, async (seed) => {
    expect(files.length).toBeGreaterThan(100);
    expect(pods.length).toBeGreaterThan(20);
    const rng = new Prng(seed);
    const failures: string[] = [];
    const seen: Record<string, number> = {};
    const logs: LogRecord[] = [];
    for (let i = 0; i < CASES_PER_SEED && failures.length < 10; i++) {
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
      const dir = join(root, `${seed}-${i}`);
      const fresh = join(root, `${seed}-${i}-fresh`);
      try {
        mkdirSync(dir);
        mkdirSync(fresh);
        const server = await loaded(dir, good, (r) => logs.push(r));
        if (server.refresher.provider().set?.problems.some((p) => p.source.endsWith('policy.yaml'))) {
          seen.skipped = (seen.skipped ?? 0) + 1; // the good version itself needs a cluster: not a reload case
          continue;
        }
        const before = await answer(server.fetch, review);
        writeFileSync(join(dir, 'policy.yaml'), broken);
        await server.refresher.refresh();
        const after = await answer(server.fetch, review);
        const refused = (server.refresher.provider().set?.problems ?? []).some((p) => p.source.endsWith('policy.yaml') && p.effect === 'ignored');
        const shown = `${label}\n  before ${JSON.stringify(before).slice(0, 300)}\n  after ${JSON.stringify(after).slice(0, 300)}`;
        expect(after.status, shown).toBe(200);
        expect(JSON.stringify(after), shown).not.toContain('internal error');
        if (refused) {
          seen.refused = (seen.refused ?? 0) + 1;
          expect(after, `${shown}\n  (refused: the last good version stays)`).toEqual(before);
        } else {
          seen.taken = (seen.taken ?? 0) + 1;
          const other = await loaded(fresh, broken, (r) => logs.push(r));
          expect(after, `${shown}\n  (taken: as a fresh load of it)`).toEqual(await answer(other.fetch, review));
        }
        if (after.response.allowed) expect(after.response.patch ? Buffer.from(after.response.patch, 'base64').toString() : '', shown).toContain('fuzz-intact');
        const errors = logs.splice(0).filter((l) => l.level === 'error' || Number(l.status) >= 500);
        expect(errors.map((l) => JSON.stringify(l).slice(0, 300)), label).toEqual([]);
      } catch (err) {
        failures.push(String((err as Error).message).split('\n').slice(0, 6).join('\n'));
      } finally {
        logs.length = 0;
        rmSync(dir, { recursive: true, force: true });
        rmSync(fresh, { recursive: true, force: true });
      }
    }
    expect(failures.join('\n\n')).toBe('');
    expect(seen.refused ?? 0, JSON.stringify(seen)).toBeGreaterThan(CASES_PER_SEED / 10);
    expect(seen.taken ?? 0, JSON.stringify(seen)).toBeGreaterThan(CASES_PER_SEED / 20);
  }, 120_000);
});
