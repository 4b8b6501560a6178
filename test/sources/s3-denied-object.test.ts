/**
 * An S3 object the store refuses to read (403 on its GetObject while the listing reads: an object uploaded
 * with a KMS key the role may not use, or owned by another account under ACLs) is a problem of that object
 * alone, as a folder's unreadable file is: the other objects load and its last good version stays in force.
 * It used to fail the whole source on every refresh, so a set whose first load met one such object never
 * loaded (every review of that set answered 503), and a loaded one never took any change again. Every object
 * of the listing refused is still the source's failure: the role may read nothing there.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useKeyedStub } from './s3-keyed-stub.js';

const stub = useKeyedStub();
/** The store refuses these keys' GetObject (403). */
const deny = (...keys: string[]) => keys.forEach((key) => stub().refuse.set(key, 403));

const refresher = () => new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client: stub().client, bucket: 'b', prefix: 'p' })], intervalMs: 0 });
const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
const problemsOf = (r: PolicySetRefresher) => (r.provider().set?.problems ?? []).map((p) => `${p.source}: ${p.message}`);

describe('S3 source, an object the store refuses to read', () => {
  it('loads the others at the first load, the refused object a problem of its own', async () => {
    stub().objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    stub().objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    deny('p/b.yaml');
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(r.provider().sourceErrors).toEqual([]);
    expect(problemsOf(r)).toEqual(["s3://b/p/b.yaml: cannot be read: Access Denied (HTTP 403), while the listing could be read (the object's ACL or its KMS key?); not read"]);
    // Readable again: it loads at the next refresh.
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('keeps the last good version of an object whose new version is refused, and takes the others’ changes', async () => {
    stub().objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    stub().objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('applied');
    stub().objects.set('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    deny('p/b.yaml');
    stub().objects.set('p/c.yaml', labelPolicy('c', 'three', 'yes'));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(r)).toEqual([
      "s3://b/p/b.yaml: cannot be read: Access Denied (HTTP 403), while the listing could be read (the object's ACL or its KMS key?); not read (the last good version of this document stays in force)",
    ]);
  });

  it('fails the source when every object listed is refused (the role may read none), the last good set in force', async () => {
    stub().objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    stub().objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    deny('p/a.yaml', 'p/b.yaml');
    const r = refresher();
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([expect.stringMatching(/^s3:\/\/b\/p: cannot read s3:\/\/b\/p\/[ab]\.yaml: Access Denied \(HTTP 403\), nor any other object of s3:\/\/b\/p\/ \(may the role s3:GetObject there\?\)$/)]);
    expect(r.provider().set).toBeUndefined();
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    const good = r.provider().set;
    stub().objects.set('p/a.yaml', labelPolicy('a', 'one', 'changed'));
    stub().objects.set('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    deny('p/a.yaml', 'p/b.yaml');
    expect((await r.refresh()).outcome).toBe('failed');
    expect(r.provider().set).toBe(good);
  });
});
