/**
 * The same S3 prefix named twice in two spellings (`s3://b/one`, `s3://b/one/`, `s3://b//one`) is one
 * source, read once, as README says of a source named twice: it used to be read twice and each of its
 * documents reported a duplicate of itself. A prefix stays a folder: `s3://b/one` is not `s3://b/one-two`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicySetRefresher, resolveSources } from '../../src/sources/index.js';
import { nodeSourceResolvers } from '../../src/sources/node/index.js';
import type { PolicySource } from '../../src/sources/types.js';
import { labelPolicy, startS3, type TestS3 } from './helpers.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
  await s3.put('one/p.yaml', labelPolicy('pone', 'team', 'one'));
  await s3.put('one-two/p.yaml', labelPolicy('ptwo', 'team', 'two'));
});
afterAll(async () => {
  await s3?.dispose();
});

const resolve = (uris: string[]) => resolveSources(uris, nodeSourceResolvers({ env: {}, s3Client: s3.client }));

describe('an S3 prefix named twice', () => {
  it.each([
    ['s3://policies/one', 's3://policies/one'],
    ['s3://policies/one', 's3://policies/one/'],
    ['s3://policies/one', 's3://policies//one'],
    ['s3://policies//one/', 's3://policies/one'],
  ])('%s and %s are read once, with no duplicate', async (a, b) => {
    const sources = resolve([a, b]);
    expect(sources.map((s) => s.uri)).toEqual([a]);
    const r = new PolicySetRefresher({ name: 'default', sources, intervalMs: 0, limits: { timeoutMs: 10_000 } });
    const result = await r.refresh();
    expect(result.errors).toEqual([]);
    expect(r.provider().set?.mutatingPolicies.map((p) => p.policy.name)).toEqual(['pone']);
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('keeps a prefix a folder: s3://b/one and s3://b/one-two are two sources, each reading its own objects', async () => {
    const sources = resolve(['s3://policies/one', 's3://policies/one-two', 's3://other-bucket/one', 's3://policies', 's3://policies/']);
    expect(sources.map((s) => s.uri)).toEqual(['s3://policies/one', 's3://policies/one-two', 's3://other-bucket/one', 's3://policies']);
    const r = new PolicySetRefresher({ name: 'default', sources: sources.slice(0, 2), intervalMs: 0, limits: { timeoutMs: 10_000 } });
    expect((await r.refresh()).errors).toEqual([]);
    expect(r.provider().set?.mutatingPolicies.map((p) => p.policy.name).sort()).toEqual(['pone', 'ptwo']);
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('an R2 prefix is keyed the same way', () => {
    const made: string[] = [];
    const r2 = (u: { uri: string }): PolicySource => {
      made.push(u.uri);
      return { uri: u.uri, list: async () => [], fetch: async () => ({ status: 'gone' }) };
    };
    resolveSources(['r2://POLICIES/one', 'r2://POLICIES/one/', 'r2://POLICIES//one', 'r2://POLICIES/one-two', 'r2://OTHER/one'], { r2 });
    expect(made).toEqual(['r2://POLICIES/one', 'r2://POLICIES/one-two', 'r2://OTHER/one']);
  });
});
