/**
 * An S3 object the store keeps failing to serve while the listing reads: a GetObject answered 400 (an
 * SSE-C object read without its key) or 500 for that object alone, or a body cut short (the connection
 * closed or reset halfway). It used to fail the whole source on every refresh, so a set whose first load
 * met one such object never loaded (every review of that set answered 503), and a loaded one never took any
 * change again. As on R2 (failing-reads.ts): a refusal (4xx) is a problem of that object at once; a failure
 * that may pass (5xx, a body cut) fails the refresh first, the last good set in force, and the same key at
 * the same ETag failing again at its next read is a problem of that object, its last good version in force,
 * the others loaded. Every object listed failing is still the source's failure.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useKeyedStub } from './s3-keyed-stub.js';

const stub = useKeyedStub();
const refresher = () => new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client: stub().client, bucket: 'b', prefix: 'p' })], intervalMs: 0 });
const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
const problemsOf = (r: PolicySetRefresher) => (r.provider().set?.problems ?? []).map((p) => `${p.source}: ${p.message}`);
const KEPT = ' (the last good version of this document stays in force)';
const INTERNAL = 'We encountered an internal error. Please try again. (HTTP 500)';
const put = (key: string, name: string, value = 'yes') => stub().objects.set(`p/${key}`, labelPolicy(name, name, value));

describe('S3 source, an object the store keeps failing to serve', () => {
  it('takes a refusal (400: an SSE-C object read without its key) as a problem of that object at once', async () => {
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().refuse.set('p/b.yaml', 400);
    const r = refresher();
    const first = await r.refresh();
    expect(first.errors).toEqual([]);
    expect(first.outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual([
      's3://b/p/b.yaml: cannot be read: The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object. (HTTP 400), while the listing could be read; not read',
    ]);
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('fails the refresh at a 500 on one object, and takes a 500 at its next read of the same ETag as a problem of that object', async () => {
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().refuse.set('p/b.yaml', 500);
    const r = refresher();
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: ${INTERNAL}`]);
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual([`s3://b/p/b.yaml: cannot be read: ${INTERNAL}, at two reads in a row, while the listing could be read; not read`]);
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
  });

  it('fails the refresh again at a 500 that follows a good read (not two failures in a row)', async () => {
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    const r = refresher();
    stub().refuse.set('p/b.yaml', 500);
    expect((await r.refresh()).outcome).toBe('failed');
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    put('b.yaml', 'b', 'changed');
    stub().refuse.set('p/b.yaml', 500);
    expect((await r.refresh()).errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: ${INTERNAL}`]);
  });

  for (const how of ['truncate', 'reset'] as const) {
    it(`keeps the last good version of an object whose body keeps stopping halfway (${how}), and takes the others’ changes`, async () => {
      put('a.yaml', 'a');
      put('b.yaml', 'b');
      const r = refresher();
      expect((await r.refresh()).outcome).toBe('applied');
      put('b.yaml', 'b', 'changed');
      put('c.yaml', 'c');
      stub().cut.set('p/b.yaml', how);
      const first = await r.refresh();
      expect(first.outcome).toBe('failed'); // may pass: the last good set stays
      expect(first.errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: the body stopped before its end (the connection was closed: aborted, ECONNRESET)`]);
      expect(names(r)).toEqual(['a', 'b']);
      expect((await r.refresh()).outcome).toBe('applied');
      expect(names(r)).toEqual(['a', 'b', 'c']);
      expect(r.provider().sourceErrors).toEqual([]);
      expect(problemsOf(r)).toEqual([`s3://b/p/b.yaml: cannot be read: the body stopped before its end (the connection was closed: aborted, ECONNRESET), at two reads in a row, while the listing could be read; not read${KEPT}`]);
      stub().cut.clear();
      expect((await r.refresh()).outcome).toBe('applied');
      expect(problemsOf(r)).toEqual([]);
    });
  }

  it('does not count a read the refresh gave up on (its time bound) as a failure of that object', async () => {
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().cut.set('p/b.yaml', 'stall');
    const r = new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client: stub().client, bucket: 'b', prefix: 'p' })], intervalMs: 0, limits: { timeoutMs: 300 } });
    expect((await r.refresh()).outcome).toBe('failed');
    stub().cut.clear();
    stub().refuse.set('p/b.yaml', 500);
    // The first failure of this object: the refresh's, not yet the object's problem.
    expect((await r.refresh()).errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: ${INTERNAL}`]);
  });

  it('fails the source when no object listed can be read, the last good set in force', async () => {
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().refuse.set('p/a.yaml', 500);
    stub().refuse.set('p/b.yaml', 500);
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('failed');
    expect((await r.refresh()).outcome).toBe('failed');
    expect((await r.refresh()).errors).toEqual([expect.stringMatching(/^s3:\/\/b\/p: cannot read s3:\/\/b\/p\/[ab]\.yaml: We encountered an internal error\. Please try again\. \(HTTP 500\), nor any other object of s3:\/\/b\/p\/$/)]);
    expect(r.provider().set).toBeUndefined();
    stub().refuse.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
  });
});
