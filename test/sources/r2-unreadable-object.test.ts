/**
 * An R2 object whose `get()` throws, through the R2 source's public API with an R2Bucket-shaped binding
 * (miniflare's bucket cannot produce the fault). It used to fail the whole source on every refresh, so a
 * set whose first load met it never loaded (every review of that set answered 503) and a loaded one never
 * took a change again. As the S3 source takes a 403 on one object: an error that names a lasting refusal
 * (an R2 error code other than 10001 internal error, 10043 unavailable, 10058 too many requests) is a
 * problem of that object alone, its last good version in force, the others loaded. A passing error (those
 * codes, or none: a dropped connection) still fails the refresh, as a 5xx does on S3, the last good set in
 * force; the same object at the same listed version failing again at its next read is then a problem of
 * its own too. Every object listed failing is still the source's failure.
 */
import { describe, expect, it } from 'vitest';
import { labelPolicy } from './helpers.js';
import { policyNames, problemsOf, r2StubRefresher } from './r2-stub-bucket.js';

/** As workerd throws them: `get: <message> (<code>)`. */
const r2Error = (message: string, code: number) => () => Object.assign(new Error(`get: ${message} (${code})`), { name: 'R2Error', code, action: 'get' });
const INTERNAL = r2Error('We encountered an internal error. Please try again.', 10001);
const DENIED = r2Error('Access Denied.', 10003);

const setup = r2StubRefresher;
const names = policyNames;
const KEPT = ' (the last good version of this document stays in force)';

describe('R2 source, an object whose get() throws', () => {
  it('takes an error that names a refusal (an R2 error code other than a passing one) as a problem of that object at once', async () => {
    const { r, put, throwing } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    throwing.set('p/b.yaml', DENIED);
    const first = await r.refresh();
    expect(first.errors).toEqual([]);
    expect(first.outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual(['r2://POLICIES/p/b.yaml: cannot be read: get: Access Denied. (10003), while the listing could be read; not read']);
    throwing.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('fails the refresh at a passing error (the last good set in force), and takes the same error at the next read of the same version as a problem of that object', async () => {
    const { r, put, throwing } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    throwing.set('p/b.yaml', INTERNAL);
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual(['r2://POLICIES/p: cannot read r2://POLICIES/p/b.yaml: get: We encountered an internal error. Please try again. (10001)']);
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual([
      'r2://POLICIES/p/b.yaml: cannot be read: get: We encountered an internal error. Please try again. (10001), at two reads in a row, while the listing could be read; not read',
    ]);
  });

  it('keeps the last good version of an object whose get() keeps throwing, and takes the others’ changes', async () => {
    const { r, put, throwing } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    expect((await r.refresh()).outcome).toBe('applied');
    put('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    throwing.set('p/b.yaml', () => new TypeError('boom'));
    put('p/c.yaml', labelPolicy('c', 'three', 'yes'));
    expect((await r.refresh()).outcome).toBe('failed'); // a passing failure, maybe: the last good set stays
    expect(names(r)).toEqual(['a', 'b']);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'c']);
    expect(r.provider().sourceErrors).toEqual([]);
    expect(problemsOf(r)).toEqual(['r2://POLICIES/p/b.yaml: cannot be read: boom, at two reads in a row, while the listing could be read; not read' + KEPT]);
  });

  it('fails the source when no object listed can be read, the last good set in force', async () => {
    const { r, put, throwing } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    throwing.set('p/a.yaml', DENIED);
    throwing.set('p/b.yaml', DENIED);
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([expect.stringMatching(/^r2:\/\/POLICIES\/p: cannot read r2:\/\/POLICIES\/p\/[ab]\.yaml: get: Access Denied\. \(10003\), nor any other object of r2:\/\/POLICIES\/p\/$/)]);
    expect(r.provider().set).toBeUndefined();
    throwing.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    const good = r.provider().set;
    put('p/a.yaml', labelPolicy('a', 'one', 'changed'));
    put('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    throwing.set('p/a.yaml', DENIED);
    throwing.set('p/b.yaml', DENIED);
    expect((await r.refresh()).outcome).toBe('failed');
    expect(r.provider().set).toBe(good);
  });

  it('takes a body whose read keeps failing as its get() (the refresh fails first, naming the object)', async () => {
    const { r, put, bodyThrowing } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    bodyThrowing.set('p/b.yaml', () => new Error('Network connection lost.'));
    const first = await r.refresh();
    expect(first.errors).toEqual(['r2://POLICIES/p: cannot read r2://POLICIES/p/b.yaml: Network connection lost.']);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual(['r2://POLICIES/p/b.yaml: cannot be read: Network connection lost., at two reads in a row, while the listing could be read; not read']);
    bodyThrowing.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
  });
});
