/**
 * The S3 source against a store that lists objects without their size and sends bodies without
 * Content-Length (test/sources/s3-stubbed().ts): an object over the per-object limit is still refused alone,
 * read no further than the limit, and the others load.
 */
import { describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useS3Stub } from './s3-stub.js';

const BUCKET = 'policies';
const stubbed = useS3Stub(BUCKET);

function refresherFor(prefix: string, maxDocumentBytes?: number) {
  const source = s3Source({ uri: `s3://${BUCKET}/${prefix}`, client: stubbed().client, bucket: BUCKET, prefix });
  return new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 10_000, ...(maxDocumentBytes ? { maxDocumentBytes } : {}) } });
}

const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];

describe('S3 source, objects of unknown size', () => {
  it('loads objects listed without a size and sent without Content-Length', async () => {
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const r = refresherFor('p');
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(r.provider().set!.problems).toEqual([]);
  });

  it('refuses one over the limit alone, reading no more than the limit of it', async () => {
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    stubbed().objects.set('p/big.yaml', labelPolicy('big', 'team', 'big') + `#${'x'.repeat(1023)}\n`.repeat(8 * 1024)); // 8 MiB
    const r = refresherFor('p');
    const before = stubbed().bodyBytesSent();
    expect((await r.refresh()).outcome).toBe('applied');
    // The big object was not drained: what was sent is its first MiB and what sockets buffer, not 8 MiB.
    expect(stubbed().bodyBytesSent() - before).toBeLessThan(4 * 1024 * 1024);
    expect(r.provider().sourceErrors).toEqual([]);
    expect(names(r)).toEqual(['a']);
    expect(r.provider().set!.problems.map((p) => [p.source, p.effect, p.message])).toEqual([
      [`s3://${BUCKET}/p/big.yaml`, 'ignored', 'is more than 1048576 bytes, the limit per file or object; not read past it'],
    ]);
  });

  it('keeps the last good version of an object that grew past the limit', async () => {
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const r = refresherFor('p', 4096);
    await r.refresh();
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'two') + `# ${'x'.repeat(8192)}\n`);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(JSON.stringify(r.provider().set!.mutatingPolicies[0].policy)).toContain('one');
    expect(r.provider().set!.problems.map((p) => p.message)).toEqual([
      'is more than 4096 bytes, the limit per file or object; not read past it (the last good version of this document stays in force)',
    ]);
  });
});
