/**
 * Several objects of one listing whose reads fail for a reason that may pass (a 500, an R2 internal
 * error), on S3 and R2 through their sources' public API. The refresh that meets them fails (the last good
 * set in force) and each is a problem of its own at its next failing read (failing-reads.ts); but the
 * refresh stopped reading at the first failure, so the objects not yet read (past the 8 read at once)
 * failed one refresh each later: a first load meeting several never loaded (every review of that set
 * answered 503) until as many refreshes had failed. Now the failing refresh reads every object first, and
 * the next one sets them all aside and loads the others.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { policyNames, problemsOf, r2StubRefresher } from './r2-stub-bucket.js';
import { useKeyedStub } from './s3-keyed-stub.js';

const stub = useKeyedStub();
/** Twelve objects, a to l: more than a refresh reads at once (8). */
const KEYS = 'abcdefghijkl'.split('');
const FAILING = ['b', 'k', 'l'];

describe('objects of one listing whose reads fail for a reason that may pass', () => {
  it('S3: one failed refresh reads them all, and the next loads the others with each of them a problem', async () => {
    for (const key of KEYS) stub().objects.set(`p/${key}.yaml`, labelPolicy(key, key, 'yes'));
    for (const key of FAILING) stub().refuse.set(`p/${key}.yaml`, 500);
    const r = new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client: stub().client, bucket: 'b', prefix: 'p' })], intervalMs: 0 });
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual(['s3://b/p: cannot read s3://b/p/b.yaml: We encountered an internal error. Please try again. (HTTP 500)']);
    // Before: failed again, naming k.yaml (then l.yaml at the third).
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(policyNames(r)).toEqual(KEYS.filter((k) => !FAILING.includes(k)));
    expect(problemsOf(r).map((p) => p.slice(0, p.indexOf(':', 5)))).toEqual(FAILING.map((k) => `s3://b/p/${k}.yaml`));
  });

  it('R2: the same', async () => {
    const { r, put, throwing } = r2StubRefresher();
    for (const key of KEYS) put(`p/${key}.yaml`, labelPolicy(key, key, 'yes'));
    const internal = () => Object.assign(new Error('get: We encountered an internal error. Please try again. (10001)'), { name: 'R2Error', code: 10001, action: 'get' });
    for (const key of FAILING) throwing.set(`p/${key}.yaml`, internal);
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual(['r2://POLICIES/p: cannot read r2://POLICIES/p/b.yaml: get: We encountered an internal error. Please try again. (10001)']);
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(policyNames(r)).toEqual(KEYS.filter((k) => !FAILING.includes(k)));
    expect(problemsOf(r).map((p) => p.slice(0, p.indexOf(':', 5)))).toEqual(FAILING.map((k) => `r2://POLICIES/p/${k}.yaml`));
  });
});
