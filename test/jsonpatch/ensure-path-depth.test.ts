/**
 * Kyverno's reading of an `add` (evanphx v5, EnsurePathExistsOnAdd) creates every missing container along
 * its path. Each new level went through the working copy's setMember, which re-checks the ownership of
 * the whole chain above it: a path of d missing levels cost d² (100,000 levels took about two minutes,
 * with no deadline check inside one operation: the review's deadline passed unnoticed). Now the levels
 * below the first created one are filled in place (40,000 levels: 12 to 16 s before, 50 ms now). Through
 * the engine, such a rule is answered by its own outcome well within a 3 s deadline, where before the
 * deadline had passed by the time the operation returned.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { answerReview } from '../../src/server/review.js';

/** The value at the end of `levels` nested members `key` (walked iteratively: the value is deep). */
function leaf(doc: JsonValue, key: string | number, levels: number): JsonValue | undefined {
  let v: any = doc;
  for (let i = 0; i < levels; i++) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[key];
  }
  return v;
}

describe('kyverno add: creating a long missing path', () => {
  it('creates 40,000 missing object levels in one walk', () => {
    const depth = 40_000;
    const doc = { spec: { keep: true } };
    const r = applyJsonPatch(doc, [{ op: 'add', path: '/spec' + '/a'.repeat(depth), value: 1 }], 'kyverno');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const spec = (r.doc as { spec: { keep: boolean; a: JsonValue } }).spec;
    expect(spec.keep).toBe(true);
    expect(leaf(spec, 'a', depth)).toBe(1);
    expect(doc).toEqual({ spec: { keep: true } });
  });

  it('creates missing array levels the same way, a new container before a null', () => {
    const r = applyJsonPatch({ l: [null] }, [{ op: 'add', path: '/l/0/1/0/x', value: 'v' }], 'kyverno');
    expect(r.ok && r.doc).toEqual({ l: [[null, [{ x: 'v' }]], null] });
    const deep = applyJsonPatch({}, [{ op: 'add', path: '/l' + '/0'.repeat(20_000), value: 'v' }], 'kyverno');
    expect(deep.ok).toBe(true);
    if (deep.ok) expect(leaf((deep.doc as { l: JsonValue }).l, 0, 20_000)).toBe('v');
  });

  it('through a Kyverno rule, is answered by the rule, not by the deadline', async () => {
    const policy = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'deep' },
      spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] }, mutate: { patchesJson6902: `- op: add\n  path: /data${'/a'.repeat(40_000)}\n  value: x` } }] },
    };
    const set = buildPolicySet(parseDocuments('p.json', JSON.stringify([policy])));
    expect(set.problems).toEqual([]);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' } };
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'u', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, namespace: 'd', operation: 'CREATE', object },
    };
    const answer = await answerReview(review, set, { deadlineMs: 3000 });
    expect(answer.status).toBe(200);
    if (answer.status !== 200) return;
    const message = answer.body.response.status?.message ?? '';
    // The object built nests past what a review may hold: the rule fails with that (failurePolicy Fail).
    expect(message).toMatch(/^policy ClusterPolicy\/deep: rule r failed: .*(nest|deep)/);
    expect(message).not.toMatch(/deadline/);
  });
});
