/**
 * An R2 object whose get() without a condition (a key not read before) comes back without its body (metadata only, as a failed
 * precondition answers), through the R2 source's public API with an R2Bucket-shaped binding. It failed the
 * whole source on every refresh ('the bucket returned no body'), so a set whose first load met it never
 * loaded. Now under the rule of any read that fails and may pass (failing-reads.ts): the first fails the
 * refresh, the last good set in force; the same key at the same listed ETag again is a problem of that
 * object, its last good version in force, the others loaded; every object listed failing so is still the
 * source's failure.
 */
import { describe, expect, it } from 'vitest';
import { labelPolicy } from './helpers.js';
import { policyNames, problemsOf, r2StubRefresher } from './r2-stub-bucket.js';

const setup = r2StubRefresher;
const names = policyNames;
const NO_BODY = 'the bucket returned the object without its body (get() without a condition)';

describe('R2 source, an object whose get() comes without its body', () => {
  it('fails the refresh the first time, the last good set in force, then loads the others with that object left out', async () => {
    const { r, put, bodiless } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    expect((await r.refresh()).outcome).toBe('applied');
    put('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    put('p/c.yaml', labelPolicy('c', 'three', 'yes'));
    put('p/d.yaml', labelPolicy('d', 'four', 'yes'));
    bodiless.add('p/c.yaml'); // new: read without a condition
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([`r2://POLICIES/p: cannot read r2://POLICIES/p/c.yaml: ${NO_BODY}`]);
    expect(names(r)).toEqual(['a', 'b']);
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'd']);
    expect(problemsOf(r)).toEqual([`r2://POLICIES/p/c.yaml: cannot be read: ${NO_BODY}, at two reads in a row, while the listing could be read; not read`]);
    bodiless.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'c', 'd']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('loads the others when a new object comes without its body twice', async () => {
    const { r, put, bodiless } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    bodiless.add('p/b.yaml');
    expect((await r.refresh()).outcome).toBe('failed');
    expect(r.provider().set).toBeUndefined();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual([`r2://POLICIES/p/b.yaml: cannot be read: ${NO_BODY}, at two reads in a row, while the listing could be read; not read`]);
  });

  it('fails the source when no object listed comes with its body', async () => {
    const { r, put, bodiless } = setup();
    put('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    put('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    bodiless.add('p/a.yaml');
    bodiless.add('p/b.yaml');
    expect((await r.refresh()).outcome).toBe('failed');
    expect((await r.refresh()).outcome).toBe('failed');
    expect((await r.refresh()).errors).toEqual([expect.stringMatching(/^r2:\/\/POLICIES\/p: cannot read r2:\/\/POLICIES\/p\/[ab]\.yaml: the bucket returned the object without its body \(get\(\) without a condition\), nor any other object of r2:\/\/POLICIES\/p\/$/)]);
    expect(r.provider().set).toBeUndefined();
    bodiless.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
  });
});
