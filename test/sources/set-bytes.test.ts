/**
 * A set's bound on bytes (32 MiB unless told) holds while its sources are read. It was checked once every
 * document had been fetched and decoded: a prefix of 300 objects of 1 MiB (a typo naming a folder of
 * other JSON) was read whole, 300 MB and 12 s, peak RSS 537 MB, before the set was refused, and the
 * fetched documents stayed held in the source's cache, refused again at every refresh (1000 such objects,
 * the most a source may list, take a gigabyte of text). Now a read stops once the set's documents pass
 * the bound, before requesting a body its listed size would take past it; the last good set stays. Work is
 * counted (the store's GetObject requests), not timed.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher, type FetchResult, type PolicySource, type SourceEntry } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useKeyedStub } from './s3-keyed-stub.js';

const stub = useKeyedStub();
/** A param object (any other kind) of about `kib` KiB. */
const bulky = (name: string, kib: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad: 'x'.repeat(kib * 1024) } });

describe("a set's bound on bytes, while its sources are read", () => {
  it('stops reading an S3 prefix once its objects pass the bound, and keeps the last good set', async () => {
    stub().objects.set('p/policy.yaml', labelPolicy('a', 'team', 'one'));
    const r = new PolicySetRefresher({ name: 'small', sources: [s3Source({ uri: 's3://b/p', client: stub().client, bucket: 'b', prefix: 'p' })], intervalMs: 0, limits: { maxTotalBytes: 512 * 1024, concurrency: 2 } });
    expect((await r.refresh()).outcome).toBe('applied');
    const good = r.provider().set;
    for (let i = 0; i < 40; i++) stub().objects.set(`p/bulk-${String(i).padStart(2, '0')}.json`, bulky(`bulk-${i}`, 100));
    stub().gets.length = 0;
    const result = await r.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors).toEqual(['policy set small: its documents hold more than 524288 bytes, the limit; not read further (reading s3://b/p)']);
    expect(r.provider().set).toBe(good);
    // 512 KiB hold 5 of the 100 KiB objects: the sixth is not requested (its listed size passes the bound).
    expect(stub().gets.length).toBeLessThanOrEqual(5);
  });

  it('counts a source read again (it moved while read) once', async () => {
    // 6 documents of 100 KiB under a bound of 1 MiB; the first read finds one replaced since its listing.
    const docs = new Map(Array.from({ length: 6 }, (_, i) => [`d${i}.json`, bulky(`d${i}`, 100)]));
    let moved = true;
    const source: PolicySource = {
      uri: 'memory://moving',
      async list(): Promise<SourceEntry[]> {
        return [...docs.keys()].map((name) => ({ name, label: name, version: 'v1' }));
      },
      async fetch(entry): Promise<FetchResult> {
        const version = moved && entry.name === 'd5.json' ? 'v2' : 'v1';
        if (version === 'v2') moved = false;
        return { status: 'fetched', version, text: docs.get(entry.name)! };
      },
    };
    const r = new PolicySetRefresher({ name: 'moving', sources: [source], intervalMs: 0, limits: { maxTotalBytes: 1024 * 1024, concurrency: 1 } });
    const result = await r.refresh();
    expect(result.errors).toEqual([]);
    expect(result.outcome).toBe('applied');
    expect(r.provider().set?.counts.params).toBe(6);
  });
});
