/**
 * An S3 object whose GetObject answer comes without what a read needs: no body (a client or middleware
 * that drops it), or no ETag, in the listing nor in the answer (a store that keeps none for that object).
 * Either failed the whole source on every refresh ('the store returned no body', 'the store gave no
 * ETag'), so a set whose first load met one such object never loaded. Now under the rule of any read that
 * fails and may pass (failing-reads.ts): the first fails the refresh, the last good set in force; the
 * same key at the same listed ETag again is a problem of that object, its last good version in force, the
 * others loaded; every object listed failing so is still the source's failure.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useKeyedStub } from './s3-keyed-stub.js';

const stub = useKeyedStub();
/** Keys whose GetObject answer reaches the source without its Body. */
const bodiless = new Set<string>();
const dropping = (client: S3Client): S3Client =>
  ({
    async send(command: { input: { Key?: string } }, options: unknown) {
      const out = await (client.send as (c: unknown, o: unknown) => Promise<{ Body?: { destroy?: () => void } }>)(command, options);
      if (command.input.Key === undefined || !bodiless.has(command.input.Key) || !out.Body) return out;
      out.Body.destroy?.();
      return { ...out, Body: undefined };
    },
  }) as unknown as S3Client;
const refresher = () => new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client: dropping(stub().client), bucket: 'b', prefix: 'p' })], intervalMs: 0 });
const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
const problemsOf = (r: PolicySetRefresher) => (r.provider().set?.problems ?? []).map((p) => `${p.source}: ${p.message}`);
const KEPT = ' (the last good version of this document stays in force)';
const NO_BODY = 'the store answered GetObject without a body';
const NO_ETAG = "the store gave no ETag, in its listing nor in GetObject's answer, so the version read cannot be told";
const put = (key: string, name: string, value = 'yes') => stub().objects.set(`p/${key}`, labelPolicy(name, name, value));

describe('S3 source, an object answered without its body or its ETag', () => {
  it('fails the refresh at an answer without a body, then keeps that object’s last good version and takes the others’ changes', async () => {
    bodiless.clear();
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('applied');
    put('b.yaml', 'b', 'changed');
    put('c.yaml', 'c');
    bodiless.add('p/b.yaml');
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: ${NO_BODY}`]);
    expect(names(r)).toEqual(['a', 'b']);
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(r)).toEqual([`s3://b/p/b.yaml: cannot be read: ${NO_BODY}, at two reads in a row, while the listing could be read; not read${KEPT}`]);
    bodiless.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(problemsOf(r)).toEqual([]);
  });

  it('fails the refresh at an object without an ETag, then takes it as that object’s problem, the others loaded', async () => {
    bodiless.clear();
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().noEtag.add('p/b.yaml');
    const r = refresher();
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([`s3://b/p: cannot read s3://b/p/b.yaml: ${NO_ETAG}`]);
    expect(r.provider().set).toBeUndefined();
    const second = await r.refresh();
    expect(second.errors).toEqual([]);
    expect(second.outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(problemsOf(r)).toEqual([`s3://b/p/b.yaml: cannot be read: ${NO_ETAG}, at two reads in a row, while the listing could be read; not read`]);
    stub().noEtag.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('fails the source when no object listed can be read so', async () => {
    bodiless.clear();
    put('a.yaml', 'a');
    put('b.yaml', 'b');
    stub().noEtag.add('p/a.yaml');
    bodiless.add('p/b.yaml');
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('failed');
    expect((await r.refresh()).outcome).toBe('failed');
    const third = await r.refresh();
    expect(third.errors).toEqual([expect.stringMatching(/^s3:\/\/b\/p: cannot read s3:\/\/b\/p\/[ab]\.yaml: .*, nor any other object of s3:\/\/b\/p\/$/)]);
    expect(r.provider().set).toBeUndefined();
    stub().noEtag.clear();
    bodiless.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
  });
});
