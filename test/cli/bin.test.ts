/** The built `amender` command as a user runs it: a child process, real files, stdin, exit codes. */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';
import { labelPolicy, patchOf, podReview, startS3, type TestS3 } from '../sources/helpers.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };

function amender(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Without blocking the event loop (the test's own S3 client shares it), with extra environment. */
function amenderAsync(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI_BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

beforeAll(() => ensureBuilt());

describe('bin/amender.js', () => {
  it('validates the bundled policies', () => {
    const r = amender(['validate', 'policies']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 4, mutatingAdmissionPolicyBindings: 4, .*params: 1, .*problems: 0\)\n$/);
  });

  it('reads a review as POST /mutate reads a body: strict UTF-8, a byte-order mark dropped, the body size limit', () => {
    const review = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`);
    const plain = amender(['review', '--policies', 'policies', '--input', '-'], review.toString('utf8'));
    expect(plain.code).toBe(0);
    // A byte-order mark: the same answer.
    const bom = spawnSync(process.execPath, [CLI_BIN, 'review', '--policies', 'policies', '--input', '-'], { cwd: ROOT, input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), review]), encoding: 'utf8' });
    expect(bom.status).toBe(0);
    expect(bom.stdout).toBe(plain.stdout);
    // Bytes that are not UTF-8 in a label value: refused, not read as U+FFFD.
    const text = review.toString('utf8');
    const at = text.indexOf('"name"');
    const bad = Buffer.concat([Buffer.from(text.slice(0, at + 8)), Buffer.from([0xff, 0xfe]), Buffer.from(text.slice(at + 8))]);
    const invalid = spawnSync(process.execPath, [CLI_BIN, 'review', '--policies', 'policies', '--input', '-'], { cwd: ROOT, input: bad, encoding: 'utf8' });
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain('cannot read standard input: not valid UTF-8');
    // Over the body limit (8 MiB): what the server answers 413.
    const large = JSON.stringify({ ...JSON.parse(text), padding: 'x'.repeat(9 * 2 ** 20) });
    const big = amender(['review', '--policies', 'policies', '--input', '-'], large);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/more than a request body may be \(AMENDER_MAX_BODY_BYTES, 8388608\): POST \/mutate would answer 413/);
  });

  it('reads a resource as kubectl reads a file: a UTF-8 byte-order mark dropped, UTF-16 with its mark decoded (a review stays strict UTF-8, as POST /mutate)', () => {
    const pod = readFileSync(`${ROOT}policies/tests/all/pod.yaml`);
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(pod.toString('utf8'), 'utf16le')]);
    const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(pod.toString('utf8'), 'utf16le').swap16()]);
    const dir = mkdtempSync(join(tmpdir(), 'amender-bom-'));
    try {
      const plain = amender(['apply', '--policies', 'policies', '--resource', 'policies/tests/all/pod.yaml']);
      expect(plain.stderr).toBe('');
      expect(plain.code).toBe(0);
      for (const [name, bytes] of [['le.yaml', utf16le], ['be.yaml', utf16be], ['bom8.yaml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), pod])]] as const) {
        writeFileSync(join(dir, name), bytes);
        const r = amender(['apply', '--policies', 'policies', '--resource', join(dir, name)]);
        expect({ name, stderr: r.stderr, code: r.code }).toEqual({ name, stderr: '', code: 0 });
        expect(r.stdout).toBe(plain.stdout);
      }
      // Standard input too (`Get-Content pod.yaml | amender apply --resource -` under PowerShell 5 writes UTF-16).
      const piped = spawnSync(process.execPath, [CLI_BIN, 'apply', '--policies', 'policies', '--resource', '-'], { cwd: ROOT, input: utf16le, encoding: 'utf8' });
      expect(piped.stderr).toBe('');
      expect(piped.stdout).toBe(plain.stdout);
      // A review is a request body: POST /mutate answers 400 to UTF-16, and so does `amender review`.
      const review = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`, 'utf8');
      writeFileSync(join(dir, 'review.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(review, 'utf16le')]));
      const refused = amender(['review', '--policies', 'policies', '--input', join(dir, 'review.json')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('not valid UTF-8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a review read from standard input with the reply JSON and its uid', () => {
    const review = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`, 'utf8');
    const r = amender(['review', '--policies', 'policies', '--input', '-'], review);
    expect(r.code).toBe(0);
    const reply = JSON.parse(r.stdout);
    expect(reply).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'b7a4e0a6-5d1f-4b8e-9c1a-2f3e4d5c6b7a' } });
  });

  it('exits 1 with a message on an unusable review, 2 on a wrong command line', () => {
    const bad = amender(['review', '--policies', 'policies'], '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('amender review: invalid AdmissionReview: request: expected an object, got nothing\n');
    const usage = amender(['frobnicate']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^amender: unknown command "frobnicate"/);
  });

  // Node 20 has no compile cache (module.enableCompileCache is Node ≥ 22.1): there the command runs as before.
  it.runIf(node24Binary() !== undefined)('keeps V8\'s compile cache in the temporary folder between runs on Node 24, unless NODE_DISABLE_COMPILE_CACHE says no', () => {
    const node24 = node24Binary()!;
    const tmp = mkdtempSync(join(tmpdir(), 'amender-cli-cache-'));
    const run = (env: Record<string, string>) => {
      const r = spawnSync(node24, [CLI_BIN, 'review', '--policies', 'policies', '--input', 'test/fixtures/reviews/pod-create.json'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, ...env },
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const cacheFiles = () => (existsSync(join(tmp, 'node-compile-cache')) ? readdirSync(join(tmp, 'node-compile-cache'), { recursive: true }).length : 0);
    try {
      const off = run({ NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(off).toMatchObject({ code: 0, stderr: '' });
      expect(cacheFiles()).toBe(0);
      const first = run({});
      expect(first).toEqual(off);
      expect(cacheFiles()).toBeGreaterThan(0);
      // The second run reads the cache and answers the same.
      expect(run({})).toEqual(off);
      // A temporary folder where no cache can be made leaves it off, silently.
      const file = join(tmp, 'a-file');
      writeFileSync(file, '');
      const r = spawnSync(node24, [CLI_BIN, 'validate', 'policies'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', TMPDIR: file } });
      expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('--policies reads what the server reads', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3();
    await s3.put('cli/label.yaml', labelPolicy('team', 'team', 'from-s3'));
    await s3.put('cli/tests/ignored.yaml', 'not: [a policy');
  });
  afterAll(async () => {
    await s3?.dispose();
  });
  const env = () => ({
    AMENDER_S3_ENDPOINT: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });

  it('an s3:// prefix, next to a file:// folder, as one set', async () => {
    const v = await amenderAsync(['validate', 's3://policies/cli', `file://${ROOT}policies`], env());
    expect(v.stderr).toBe('');
    expect(v.stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 5, mutatingAdmissionPolicyBindings: 5, /);
    const r = await amenderAsync(['review', '--policies', 's3://policies/cli', '--input', '-'], env(), JSON.stringify(podReview()));
    expect(r.code).toBe(0);
    expect(patchOf(JSON.parse(r.stdout))).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'from-s3' }]);
  });

  it('bundled, and an unreadable or unknown source with its message', async () => {
    expect(amender(['validate', 'bundled']).stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 4, /);
    const unknown = await amenderAsync(['validate', 's3://policies/cli', 'r2://BUCKET/x'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('amender validate: policy source r2://BUCKET/x: r2:// sources are not available on the command line (available: bundled, file://, s3://)\n');
    const unreadable = await amenderAsync(['validate', 's3://no-such-bucket/x'], env());
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toBe('amender validate: cannot read policies from s3://no-such-bucket/x: cannot list s3://no-such-bucket/x/: The specified bucket does not exist (HTTP 404)\n');
  });
});

describe('amender hash-secret', () => {
  const secret = 'f3a1c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3';
  const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

  it('prints the hash of the secret read from standard input, one trailing newline ignored', () => {
    for (const input of [secret, `${secret}\n`, `${secret}\r\n`]) {
      const r = amender(['hash-secret'], input);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(`${sha256(secret)}\n`);
      expect(r.code).toBe(0);
    }
  });

  it('warns about a short secret and refuses what no caller could present', () => {
    const short = amender(['hash-secret'], 'hunter2');
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(`${sha256('hunter2')}\n`);
    expect(short.stderr).toMatch(/^warning: a secret of 7 characters may be guessed from its hash/);
    expect(amender(['hash-secret'], '').stderr).toBe('amender hash-secret: no secret on standard input\n');
    expect(amender(['hash-secret'], 'two words\n').code).toBe(1);
    const arg = amender(['hash-secret', secret]);
    expect(arg.code).toBe(2);
    expect(arg.stderr).not.toContain(secret);
  });
});
