/**
 * An S3 object the store refuses to read (403 on its GetObject while the listing reads: an object uploaded
 * with a KMS key the role may not use, or owned by another account under ACLs) is a problem of that object
 * alone, as a folder's unreadable file is: the other objects load and its last good version stays in force.
 * It used to fail the whole source on every refresh, so a set whose first load met one such object never
 * loaded (every review of that set answered 503), and a loaded one never took any change again. Every object
 * of the listing refused is still the source's failure: the role may read nothing there.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { createS3Client, s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';

const objects = new Map<string, string>();
/** Keys whose GetObject answers 403 AccessDenied. */
const denied = new Set<string>();
const etagOf = (body: string) => `"${createHash('md5').update(body).digest('hex')}"`;

/** ListObjectsV2 and GetObject of bucket `b`, path style, with the 403s of `denied`. */
function store(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://store');
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    if (path === 'b' || path === 'b/') {
      const contents = [...objects].sort().map(([key, body]) => `<Contents><Key>${key}</Key><ETag>${etagOf(body)}</ETag><Size>${Buffer.byteLength(body)}</Size></Contents>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>${contents.join('')}</ListBucketResult>`);
    }
    const key = path.slice('b/'.length);
    const body = objects.get(key);
    if (denied.has(key) || body === undefined) {
      res.writeHead(denied.has(key) ? 403 : 404, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0"?><Error><Code>${denied.has(key) ? 'AccessDenied' : 'NoSuchKey'}</Code><Message>${denied.has(key) ? 'Access Denied' : 'no such key'}</Message></Error>`);
    }
    if (req.headers['if-none-match'] === etagOf(body)) {
      res.writeHead(304, { etag: etagOf(body) });
      return res.end();
    }
    res.writeHead(200, { etag: etagOf(body), 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

let server: Server;
let client: S3Client;
beforeAll(async () => {
  server = store();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = await createS3Client({ region: 'us-east-1', endpoint, forcePathStyle: true }, { credentials: { accessKeyId: 'STUB', secretAccessKey: 'STUB' }, maxAttempts: 1 });
});
afterAll(async () => {
  client?.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(() => {
  objects.clear();
  denied.clear();
});

const refresher = () => new PolicySetRefresher({ name: 'default', sources: [s3Source({ uri: 's3://b/p', client, bucket: 'b', prefix: 'p' })], intervalMs: 0 });
const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
const problemsOf = (r: PolicySetRefresher) => (r.provider().set?.problems ?? []).map((p) => `${p.source}: ${p.message}`);

describe('S3 source, an object the store refuses to read', () => {
  it('loads the others at the first load, the refused object a problem of its own', async () => {
    objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    denied.add('p/b.yaml');
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(r.provider().sourceErrors).toEqual([]);
    expect(problemsOf(r)).toEqual(["s3://b/p/b.yaml: cannot be read: Access Denied (HTTP 403), while the listing could be read (the object's ACL or its KMS key?); not read"]);
    // Readable again: it loads at the next refresh.
    denied.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(problemsOf(r)).toEqual([]);
  });

  it('keeps the last good version of an object whose new version is refused, and takes the others’ changes', async () => {
    objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    const r = refresher();
    expect((await r.refresh()).outcome).toBe('applied');
    objects.set('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    denied.add('p/b.yaml');
    objects.set('p/c.yaml', labelPolicy('c', 'three', 'yes'));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(r)).toEqual([
      "s3://b/p/b.yaml: cannot be read: Access Denied (HTTP 403), while the listing could be read (the object's ACL or its KMS key?); not read (the last good version of this document stays in force)",
    ]);
  });

  it('fails the source when every object listed is refused (the role may read none), the last good set in force', async () => {
    objects.set('p/a.yaml', labelPolicy('a', 'one', 'yes'));
    objects.set('p/b.yaml', labelPolicy('b', 'two', 'yes'));
    denied.add('p/a.yaml').add('p/b.yaml');
    const r = refresher();
    const first = await r.refresh();
    expect(first.outcome).toBe('failed');
    expect(first.errors).toEqual([expect.stringMatching(/^s3:\/\/b\/p: cannot read s3:\/\/b\/p\/[ab]\.yaml: Access Denied \(HTTP 403\), nor any other object of s3:\/\/b\/p\/ \(may the role s3:GetObject there\?\)$/)]);
    expect(r.provider().set).toBeUndefined();
    denied.clear();
    expect((await r.refresh()).outcome).toBe('applied');
    const good = r.provider().set;
    objects.set('p/a.yaml', labelPolicy('a', 'one', 'changed'));
    objects.set('p/b.yaml', labelPolicy('b', 'two', 'changed'));
    denied.add('p/a.yaml').add('p/b.yaml');
    expect((await r.refresh()).outcome).toBe('failed');
    expect(r.provider().set).toBe(good);
  });
});
