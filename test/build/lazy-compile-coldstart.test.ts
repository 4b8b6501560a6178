/**
 * Bundled policies compile on first use (BuildOptions.compile, ParsedSource.validatedAtBuild): a cold
 * start compiles only what its first reviews reach. What stays true: the build still compiles every
 * bundled policy and refuses one that does not compile; a set compiled on first use answers exactly as
 * one compiled at load; and a policy that fails to compile on first use is answered by its failurePolicy.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments, type ParsedSource } from '../../src/policyset/index.js';
import { answerReviewText } from '../../src/server/index.js';
import { bundledSource, bundlePolicies } from '../../src/sources/index.js';
import { labelPolicy } from '../sources/helpers.js';
import { pod4k } from '../../bench/fixtures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const temps: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function folderFiles(dir: string): { name: string; text: string }[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

/** What the bundled source hands the refresher: every file of the bundle, read back as at run time. */
async function bundledInputs(files: { name: string; text: string }[]): Promise<ParsedSource[]> {
  const result = await bundlePolicies(files);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const source = bundledSource(result.bundle);
  const inputs: ParsedSource[] = [];
  const signal = new AbortController().signal;
  for (const entry of await source.list({ signal, maxEntries: 1000 })) {
    const fetched = await source.fetch(entry, { signal, maxBytes: 1 << 24 });
    if (fetched.status !== 'parsed') throw new Error(`unexpected ${fetched.status}`);
    inputs.push(fetched.parsed);
  }
  return inputs;
}

/** An answer without the time each policy took (which differs between any two runs). */
function withoutDurations(answer: object): unknown {
  return JSON.parse(JSON.stringify(answer, (key, value: unknown) => (key === 'durationMs' ? undefined : value)));
}

function review(uid: string, pod: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid, kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, namespace: 'shop', operation: 'CREATE', userInfo: { username: 'u' }, object: pod, oldObject: null },
  });
}

describe('the build still compiles every bundled policy', () => {
  it('fails the build when a bundled policy does not compile, naming the policy and the expression', async () => {
    const policies = tempDir('amender-lazy-bad-');
    writeFileSync(join(policies, 'good.yaml'), labelPolicy('good', 'team', 'x'));
    writeFileSync(join(policies, 'broken.yaml'), labelPolicy('broken-cel', 'team', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.no_such_function()}]'));
    const { buildTargets } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
      buildTargets(names: string[], options: { policiesDir: string; distDir: string; compileCacheNode: null }): Promise<unknown>;
    };
    await expect(buildTargets(['lambda'], { policiesDir: policies, distDir: tempDir('amender-lazy-dist-'), compileCacheNode: null })).rejects.toThrow(
      /invalid bundled policies in .*\nbundled:broken\.yaml#0 MutatingAdmissionPolicy\/broken-cel: spec\.mutations\[0\]\.jsonPatch\.expression: .*no_such_function/,
    );
  });
});

describe('a bundled set compiles on first use', () => {
  it('answers the cold-start benchmark\'s 50 policies exactly as the same set compiled at load', async () => {
    const files = folderFiles(join(ROOT, 'bench/fixtures/policies-50'));
    const inputs = await bundledInputs(files);
    expect(inputs.every((p) => p.validatedAtBuild)).toBe(true);
    const onFirstUse = buildPolicySet(inputs);
    const atLoad = buildPolicySet(inputs, { compile: 'load' });
    expect(onFirstUse.counts).toEqual(atLoad.counts);
    expect(onFirstUse.counts.mutatingAdmissionPolicies).toBe(40);
    const bare = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'shop' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    // pod4k(): the benchmark's AdmissionReview of a 4 KB Pod.
    for (const text of [JSON.stringify(pod4k()), review('b', bare)]) {
      const [lazy, eager] = await Promise.all([answerReviewText(text, onFirstUse, 64), answerReviewText(text, atLoad, 64)]);
      expect(lazy.status).toBe(200);
      expect(withoutDurations(lazy)).toEqual(withoutDurations(eager));
    }
    const patched = await answerReviewText(JSON.stringify(pod4k()), onFirstUse, 64);
    expect(patched.status === 200 && patched.outcome).toBe('patched');
  });

  it('sources not validated at build compile at load, and refuse a policy that does not compile', () => {
    const broken = labelPolicy('broken-cel', 'team', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.no_such_function()}]');
    const set = buildPolicySet([parseDocuments('file:broken.yaml', broken)]);
    expect(set.counts.mutatingAdmissionPolicies).toBe(0);
    expect(set.problems.some((p) => p.name === 'broken-cel' && p.effect === 'ignored')).toBe(true);
  });

  it('answers by failurePolicy a policy that fails to compile on first use', async () => {
    const broken = (policy: string) => labelPolicy('broken-cel', 'team', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.no_such_function()}]').replace('failurePolicy: Fail', `failurePolicy: ${policy}`);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const fail = buildPolicySet([{ ...parseDocuments('bundled:broken.yaml', broken('Fail')), validatedAtBuild: true }]);
    expect(fail.problems).toEqual([]);
    const denied = await answerReviewText(review('d', pod), fail, 64);
    expect(denied.status === 200 && denied.body.response.allowed).toBe(false);
    const ignore = buildPolicySet([parseDocuments('bundled:broken.yaml', broken('Ignore'))], { compile: 'first-use' });
    const allowed = await answerReviewText(review('e', pod), ignore, 64);
    expect(allowed.status === 200 && allowed.outcome).toBe('allowed');
  });
});
