/**
 * An ApplyConfiguration mutation merges into, converts and re-encodes the object with no tick inside: over a
 * Pod of 200,000 labels (a 2.7 MB review) about 0.5 s each, and the bundled policies ran 3.2 s past a
 * 100 ms deadline because the clock was read only every TICKS_PER_CHECK ticks, which a handful of
 * invocations never reach. The clock is now read after each mutation, so a passed deadline stops the
 * review at the mutation in progress. Counted, not timed: a guard whose clock passes the deadline at its
 * second reading.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { labelling } from './helpers/label-policy.js';

/** A label policy of each name, adding `name: done`. */
const labelPolicy = (name: string) => labelling(name, 'Fail', 'done');

const labels = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`l${i}`, 'v']));
const request = {
  uid: 'u',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  namespace: 'default',
  name: 'web',
  operation: 'CREATE',
  userInfo: { username: 'alice' },
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  oldObject: null,
} as const;

describe('the deadline during ApplyConfiguration mutations over a large object', () => {
  it('stops the review after the mutation in progress, naming its policy; later policies do not run', async () => {
    const set = buildPolicySet([parseDocuments('labels.yaml', ['aaa', 'bbb', 'ccc'].map(labelPolicy).join('---\n'))]);
    expect(set.problems).toEqual([]);
    // Readings: 0 when the guard is made, then 1000 ms per reading: past a 500 ms deadline at the second.
    let reads = 0;
    const guard = new ReviewGuard({ deadlineMs: 500, maxValueBytes: 64 << 20, now: () => 1000 * reads++ });
    const result = await evaluate(set, request as never, { guard });
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toMatch(/aaa.*deadline exceeded/s);
    expect(reads).toBeLessThan(5);
  });

  it('an ample deadline applies all three, reading the clock once per mutation', async () => {
    const set = buildPolicySet([parseDocuments('labels.yaml', ['aaa', 'bbb', 'ccc'].map(labelPolicy).join('---\n'))]);
    let reads = 0;
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 64 << 20, now: () => reads++ });
    const result = await evaluate(set, request as never, { guard });
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect((result.object as { metadata: { labels: Record<string, string> } }).metadata.labels).toMatchObject({ aaa: 'done', bbb: 'done', ccc: 'done' });
    expect(reads).toBeGreaterThanOrEqual(4);
  });
});
