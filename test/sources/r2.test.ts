/**
 * The R2 source in workerd (miniflare) through a real R2 bucket binding: the source module and the
 * refresher are bundled for the browser platform (so a `node:*` import would fail the build) and run as
 * a Worker; the bucket is filled from the test through miniflare's handle on the same binding.
 */
import { Miniflare } from 'miniflare';
import { bundleForWorkerd } from '../fixtures/workerd.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CORRUPT_YAML, labelPolicy } from './helpers.js';

let mf: Miniflare;
/** The test's handle on the R2 binding (miniflare's own types need the Workers type package). */
interface Bucket {
  list(): Promise<{ objects: { key: string }[] }>;
  put(key: string, value: string | Uint8Array): Promise<unknown>;
  head(key: string): Promise<{ etag: string; size: number } | null>;
  delete(key: string): Promise<void>;
}
let bucket: Bucket;

beforeAll(async () => {
  const script = await bundleForWorkerd(new URL('./r2-worker.ts', import.meta.url));
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-01-01',
    r2Buckets: ['POLICIES'],
  });
  bucket = (await mf.getR2Bucket('POLICIES')) as unknown as Bucket;
});

afterAll(async () => {
  await mf?.dispose();
});

beforeEach(async () => {
  const listed = await bucket.list();
  for (const o of listed.objects) await bucket.delete(o.key);
});

async function call<T>(path: string): Promise<T> {
  const res = await mf.dispatchFetch(`http://worker.test${path}`);
  const body = (await res.json()) as T & { error?: string };
  if (res.status !== 200) throw new Error(`worker answered ${res.status}: ${body.error}`);
  return body;
}

interface RefreshReply {
  result: { outcome: string; fetched: number; notModified: number; skipped: number; errors: string[] };
  calls: string[];
  policies: string[];
  problems: { source: string; message: string }[];
  sourceErrors: string[];
}

describe('R2 source (workerd, R2 binding)', () => {
  it('lists the prefix as a folder, policy documents only, with ETags', async () => {
    await bucket.put('team-a/a.yaml', labelPolicy('a', 'team', 'a'));
    await bucket.put('team-a/sub/b.json', '{}');
    await bucket.put('team-a/readme.md', '# no');
    await bucket.put('team-ab/c.yaml', labelPolicy('c', 'team', 'c'));
    const { entries, calls } = await call<{ entries: { name: string; label: string; version: string; size: number }[]; calls: string[] }>('/list?prefix=team-a');
    expect(entries.map((e) => e.name)).toEqual(['team-a/a.yaml', 'team-a/sub/b.json']);
    const head = await bucket.head('team-a/a.yaml');
    expect(entries[0]).toEqual({ name: 'team-a/a.yaml', label: 'r2://POLICIES/team-a/a.yaml', version: head!.etag, size: head!.size });
    expect(calls).toEqual(['list']);
  });

  it('bounds a listing in count', async () => {
    for (let i = 0; i < 5; i++) await bucket.put(`many/p${i}.yaml`, '{}');
    const res = await mf.dispatchFetch('http://worker.test/list?prefix=many&max=3');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: string }).error).toBe('r2://POLICIES/many: lists more than 3 documents');
  });

  it('gets a document, and answers not-modified to a conditional get with the current ETag', async () => {
    await bucket.put('p/a.yaml', labelPolicy('a', 'team', 'a'));
    const etag = (await bucket.head('p/a.yaml'))!.etag;
    type FetchReply = { result: { status: string; version?: string; text?: string }; calls: string[] };
    const plain = await call<FetchReply>('/fetch?prefix=p&key=p/a.yaml');
    expect(plain.result).toEqual({ status: 'fetched', version: etag, text: labelPolicy('a', 'team', 'a') });
    expect(plain.calls).toEqual(['get p/a.yaml plain body']);

    const same = await call<FetchReply>(`/fetch?prefix=p&key=p/a.yaml&ifNoneMatch=${etag}`);
    expect(same.result).toEqual({ status: 'not-modified' });
    expect(same.calls).toEqual(['get p/a.yaml conditional no-body']);

    await bucket.put('p/a.yaml', labelPolicy('a', 'team', 'changed'));
    const changed = await call<FetchReply>(`/fetch?prefix=p&key=p/a.yaml&ifNoneMatch=${etag}`);
    expect(changed.result.status).toBe('fetched');
    expect(changed.result.text).toContain('changed');
    expect(changed.calls).toEqual(['get p/a.yaml conditional body']);

    expect((await call<FetchReply>('/fetch?prefix=p&key=p/gone.yaml')).result).toEqual({ status: 'gone' });
  });

  it('refreshes a policy set inside the Worker: first load, no fetch when unchanged, one fetch per change, corrupt document reported', async () => {
    await bucket.put('p/a.yaml', labelPolicy('a', 'team', 'a'));
    await bucket.put('p/b.yaml', labelPolicy('b', 'owner', 'b'));
    const first = await call<RefreshReply>('/refresh?prefix=p');
    expect(first.result).toMatchObject({ outcome: 'applied', fetched: 2 });
    expect(first.policies).toEqual(['a', 'b']);

    const same = await call<RefreshReply>('/refresh?prefix=p');
    expect(same.result).toMatchObject({ outcome: 'unchanged', fetched: 0, skipped: 2 });
    expect(same.calls).toEqual(['list']);

    await bucket.put('p/b.yaml', labelPolicy('b', 'owner', 'b2'));
    await bucket.put('p/c.yaml', CORRUPT_YAML);
    const changed = await call<RefreshReply>('/refresh?prefix=p');
    expect(changed.result).toMatchObject({ outcome: 'applied', fetched: 2, skipped: 1 });
    expect(changed.calls.sort()).toEqual(['get p/b.yaml conditional body', 'get p/c.yaml plain body', 'list', 'list']); // listed again to confirm
    expect(changed.policies).toEqual(['a', 'b']);
    expect(changed.problems.map((p) => p.source)).toEqual(['r2://POLICIES/p/c.yaml']);
    expect(changed.sourceErrors).toEqual([]);

    // An object over the size limit (1 MiB) is a problem of that object alone, never requested.
    await bucket.put('p/d.yaml', labelPolicy('d', 'team', 'd') + `#${'x'.repeat(999)}\n`.repeat(1100));
    const big = await call<RefreshReply>('/refresh?prefix=p');
    expect(big.result.outcome).toBe('applied');
    expect(big.calls.filter((c) => c.startsWith('get'))).toEqual([]);
    expect(big.policies).toEqual(['a', 'b']);
    expect(big.problems.find((p) => p.source === 'r2://POLICIES/p/d.yaml')?.message).toMatch(/^is \d+ bytes, over the limit of 1048576 bytes per file or object; not read$/);
    expect(big.sourceErrors).toEqual([]);
  });

  it('reads an object with a UTF-8 byte-order mark, or written in UTF-16 with its mark, as the folder and S3 sources do (kubectl reads such files)', async () => {
    const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const bytes = (...parts: Buffer[]) => new Uint8Array(Buffer.concat(parts));
    await bucket.put('bom/le.yaml', bytes(Buffer.from([0xff, 0xfe]), Buffer.from(labelPolicy('le', 'team', 'é'), 'utf16le')));
    await bucket.put('bom/be.yaml', bytes(Buffer.from([0xfe, 0xff]), utf16be(labelPolicy('be', 'team', 'two'))));
    await bucket.put('bom/u8.json', bytes(Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bom"}}')));
    const loaded = await call<RefreshReply & { mutations: string[] }>('/load?prefix=bom');
    expect(loaded.sourceErrors).toEqual([]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.policies).toEqual(['be', 'le']);
    expect(loaded.mutations[1]).toContain('é');
  });

  it('takes a key listed while get() returns null, and an object whose get() keeps throwing, as problems of their own; the others load', async () => {
    await bucket.put('faults/a.yaml', labelPolicy('a', 'team', 'a'));
    await bucket.put('faults/ghost.yaml', labelPolicy('ghost', 'team', 'g'));
    await bucket.put('faults/bad.yaml', labelPolicy('bad', 'team', 'b'));
    const faults = `/faults?prefix=faults&phantom=faults/ghost.yaml&throws=${encodeURIComponent('faults/bad.yaml:get: We encountered an internal error. Please try again. (10001)')}`;
    // A passing error fails the first read, as a 5xx fails an S3 source: no set yet.
    const first = await call<RefreshReply>(faults);
    expect(first.result.outcome).toBe('failed');
    expect(first.sourceErrors).toEqual(['r2://POLICIES/faults: cannot read r2://POLICIES/faults/bad.yaml: get: We encountered an internal error. Please try again. (10001) (no policy set is loaded yet)']);
    // Read again, the same faults at the same versions: problems of those objects, the others loaded.
    const second = await call<RefreshReply>(faults);
    expect(second.result.outcome).toBe('applied');
    expect(second.sourceErrors).toEqual([]);
    expect(second.policies).toEqual(['a']);
    expect(second.problems.map((p) => `${p.source}: ${p.message}`)).toEqual([
      'r2://POLICIES/faults/bad.yaml: cannot be read: get: We encountered an internal error. Please try again. (10001), at two reads in a row, while the listing could be read; not read',
      'r2://POLICIES/faults/ghost.yaml: cannot be read: the store lists this key but has no object of that key, at two reads in a row (a stale listing entry?); not read',
    ]);
    // Readable again: both load.
    const healed = await call<RefreshReply>('/faults?prefix=faults');
    expect(healed.result.outcome).toBe('applied');
    expect(healed.policies).toEqual(['a', 'bad', 'ghost']);
    expect(healed.problems).toEqual([]);
  });
});
