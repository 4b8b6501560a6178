/**
 * Object keys an S3 listing in XML cannot carry as they are: a carriage return (XML reads it as a line
 * feed), beside keys with a space and a `+`. The source asks for URL-encoded keys (EncodingType=url) and
 * decodes them as S3 encodes them (a space as `+`): against a store that encodes (s3rver answering the
 * parameter as S3 does, see s3rver-process.mjs) every object loads; against one that ignores it (s3rver as
 * it is) the key with a CR is a problem of its own and the others load, where it used to fail the whole
 * source for ever ("kept changing while being read").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { createS3Client, s3Source } from '../../src/sources/node/index.js';
import { BUCKET, labelPolicy, startS3, type TestS3 } from './helpers.js';

const S3RVER_PROCESS = fileURLToPath(new URL('./s3rver-process.mjs', import.meta.url));

/** s3rver answering `encoding-type=url` as S3 does, in its own process, on 127.0.0.1. */
async function startEncodingS3rver(): Promise<{ client: S3Client; stop: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'amender-s3-keys-'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', S3RVER_PROCESS, '0', directory, 'url-encoding'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s: ${output}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /LISTENING (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${output}`));
    });
  });
  const client = await createS3Client({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true }, { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, maxAttempts: 1 });
  return {
    client,
    stop: async () => {
      client.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const KEYS = { good: 'keys/good.yaml', cr: 'keys/bad\r.yaml', space: 'keys/a b+c.yaml', odd: 'keys/odd %20ü&?#😀.yaml' };

let plain: TestS3;
let encoding: Awaited<ReturnType<typeof startEncodingS3rver>>;
beforeAll(async () => {
  [plain, encoding] = await Promise.all([startS3(), startEncodingS3rver()]);
  for (const [name, key] of Object.entries(KEYS)) {
    await plain.put(key, labelPolicy(name, name, 'x'));
    await encoding.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: labelPolicy(name, name, 'x') }));
  }
}, 60_000);
afterAll(async () => {
  await plain?.dispose();
  await encoding?.stop();
});

const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];

describe('S3 object keys an XML listing cannot carry', () => {
  it('the test stores: one URL-encodes keys when asked (as S3 does), the other ignores the parameter', async () => {
    const encoded = await encoding.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'keys/', EncodingType: 'url' }));
    expect(encoded.EncodingType).toBe('url');
    expect(encoded.Contents?.map((o) => o.Key)).toEqual(['keys/a+b%2Bc.yaml', 'keys/bad%0D.yaml', 'keys/good.yaml', 'keys/odd+%2520%C3%BC%26%3F%23%F0%9F%98%80.yaml']);
    const raw = await plain.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'keys/', EncodingType: 'url' }));
    expect(raw.EncodingType).toBeUndefined();
    expect(raw.Contents?.map((o) => o.Key)).toEqual(['keys/a b+c.yaml', 'keys/bad\n.yaml', 'keys/good.yaml', 'keys/odd %20ü&?#😀.yaml']); // the CR read back as LF
  });

  it('reads every object, the key with a CR too, from a store that URL-encodes its listing', async () => {
    const source = s3Source({ uri: `s3://${BUCKET}/keys`, client: encoding.client, bucket: BUCKET, prefix: 'keys' });
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 10_000 } });
    const first = await r.refresh();
    expect(first.errors).toEqual([]);
    expect(first.outcome).toBe('applied');
    expect(names(r).sort()).toEqual(['cr', 'good', 'odd', 'space']);
    expect(r.provider().set!.problems).toEqual([]);
    expect((await r.refresh()).outcome).toBe('unchanged');
  });

  it('loads the others, and reports the key with a CR alone, from a store that ignores EncodingType', async () => {
    const source = s3Source({ uri: `s3://${BUCKET}/keys`, client: plain.client, bucket: BUCKET, prefix: 'keys' });
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 10_000 } });
    const first = await r.refresh();
    expect(first.errors).toEqual([]);
    expect(first.outcome).toBe('applied');
    expect(names(r).sort()).toEqual(['good', 'odd', 'space']);
    const problems = r.provider().set!.problems.map((p) => `${p.source}: ${p.message}`);
    expect(problems).toEqual([expect.stringMatching(/^s3:\/\/policies\/keys\/bad\n\.yaml: cannot be read: .*carriage return.*EncodingType=url/)]);
    const again = await r.refresh();
    expect(again.errors).toEqual([]);
    expect(names(r).sort()).toEqual(['good', 'odd', 'space']);
  });
});
