/**
 * The S3 source against a compatible store that lists ETags without their quotes while GetObject's ETag
 * header has them (NetApp ONTAP does; S3 quotes both): the same version written two ways is one version.
 * Compared as text, every object would look replaced between its listing and its read, the refresh would
 * read the source again, then fail ("kept changing"), and the set would never load.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useS3Stub } from './s3-stub.js';

const BUCKET = 'policies';
const stubbed = useS3Stub(BUCKET);

const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
const gets = () => stubbed().requests.filter((r) => r.startsWith('GET /policies/p/')).length;

describe('S3 source, a store that lists ETags without quotes', () => {
  it('loads, skips what the listing shows unchanged, and fetches only what changed', async () => {
    stubbed().quoteListedEtags = false;
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    stubbed().objects.set('p/b.yaml', labelPolicy('b', 'team', 'two'));
    const source = s3Source({ uri: `s3://${BUCKET}/p`, client: stubbed().client, bucket: BUCKET, prefix: 'p' });
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 10_000 } });
    const first = await r.refresh();
    expect(first.errors).toEqual([]);
    expect(first.outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(gets()).toBe(2);

    const again = await r.refresh();
    expect(again).toMatchObject({ outcome: 'unchanged', skipped: 2, fetched: 0 });
    expect(gets()).toBe(2);

    stubbed().objects.set('p/b.yaml', labelPolicy('b', 'team', 'three'));
    const changed = await r.refresh();
    expect(changed).toMatchObject({ outcome: 'applied', fetched: 1, skipped: 1 });
    expect(gets()).toBe(3);
    expect(r.provider().sourceErrors).toEqual([]);
  });

  it('asks with If-None-Match in the quoted form, so an unchanged object answers 304', async () => {
    stubbed().quoteListedEtags = false;
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const source = s3Source({ uri: `s3://${BUCKET}/p`, client: stubbed().client, bucket: BUCKET, prefix: 'p' });
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, trustListedVersions: false, limits: { timeoutMs: 10_000 } });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(await r.refresh()).toMatchObject({ outcome: 'unchanged', notModified: 1, fetched: 0 });
  });
});
