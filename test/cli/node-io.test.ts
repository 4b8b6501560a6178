/**
 * The CLI's real input and output (src/cli/node-io.ts) as a user meets them: src/cli/bin.ts (the entry of
 * the bundle) run from source in a child process, so these run without `npm run build`.
 */
import { execFileSync, spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = ['--import', 'tsx', `${ROOT}src/cli/bin.ts`];
const REVIEW = `${ROOT}test/fixtures/reviews/pod-create.json`;
const LIMIT = 8 * 1024 * 1024;

function amender(args: string[], options: SpawnSyncOptions = {}) {
  // Killed after 20 s: an input read without bound would otherwise grow until the machine gives out.
  const r = spawnSync(process.execPath, [...ENTRY, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', ...options });
  return { code: r.status, signal: r.signal, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** Standard input from an endless device: read to its end, it never ends. */
function withDevZeroStdin<T>(run: (fd: number) => T): T {
  const fd = openSync('/dev/zero', 'r');
  try {
    return run(fd);
  } finally {
    closeSync(fd);
  }
}

describe('inputs are read with a bound', () => {
  it('refuses a file that never ends (/dev/zero) after the limit, naming it and the limit', () => {
    const review = amender(['review', '--policies', 'policies', '--input', '/dev/zero']);
    expect(review.signal).toBe(null);
    expect(review.code).toBe(1);
    expect(review.stderr).toBe(
      `amender review: /dev/zero: the review is longer than ${LIMIT} bytes, more than a request body may be (AMENDER_MAX_BODY_BYTES, ${LIMIT}): POST /mutate would answer 413\n`,
    );
    const apply = amender(['apply', '--policies', 'policies', '--resource', '/dev/zero']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(`amender apply: cannot read /dev/zero: more than ${LIMIT} bytes, the most the CLI reads of one input (the default request body limit, AMENDER_MAX_BODY_BYTES)\n`);
  });

  it('refuses standard input that never ends after the limit', () => {
    const review = withDevZeroStdin((fd) => amender(['review', '--policies', 'policies'], { stdio: [fd, 'pipe', 'pipe'] }));
    expect(review.signal).toBe(null);
    expect(review.code).toBe(1);
    expect(review.stderr).toContain(`amender review: standard input: the review is longer than ${LIMIT} bytes`);
    const hash = withDevZeroStdin((fd) => amender(['hash-secret'], { stdio: [fd, 'pipe', 'pipe'] }));
    expect(hash.code).toBe(1);
    expect(hash.stderr).toBe(`amender hash-secret: cannot read standard input: more than ${LIMIT} bytes, the most the CLI reads of one input (the default request body limit, AMENDER_MAX_BODY_BYTES)\n`);
  });

  it('still reads a file of ordinary size', () => {
    const r = amender(['review', '--policies', 'policies', '--input', REVIEW]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'AdmissionReview' });
  });
});

describe('input that is not UTF-8 is a user error, not an internal one', () => {
  it('hash-secret and eval --batch say so without a stack', () => {
    const hash = amender(['hash-secret'], { input: Buffer.from([0x61, 0x62, 0x63, 0xff, 0xfe]) });
    expect(hash.code).toBe(1);
    expect(hash.stderr).toBe('amender hash-secret: cannot read standard input: not valid UTF-8\n');
    const batch = amender(['eval', '--batch'], { input: Buffer.concat([Buffer.from('{"expression":"1"}\n'), Buffer.from([0xff, 0x0a])]) });
    expect(batch.code).toBe(1);
    expect(batch.stderr).toBe('amender eval: cannot read standard input: not valid UTF-8\n');
  });
});

describe('a folder that cannot be read is a user error, not an internal one (run as an unprivileged user)', () => {
  const asRoot = process.getuid?.() === 0;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'amender-private-'));
    execFileSync('chmod', ['755', dir]);
    mkdirSync(join(dir, 'private'), { mode: 0o700 });
    execFileSync('chmod', [asRoot ? '700' : '000', join(dir, 'private')]);
    writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: nginx}]}\n', { mode: 0o644 });
  });
  afterEach(() => {
    execFileSync('chmod', ['755', join(dir, 'private')]);
    rmSync(dir, { recursive: true, force: true });
  });
  // As root every folder reads: the CLI runs as nobody (65534), as it would in a pod.
  const asNobody = (args: string[]) => amender(args, asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {});

  it('amender test names the folder, with no stack, and exits 1 (a test left unrun is never a pass)', () => {
    const r = asNobody(['test', dir]);
    expect(r.stderr).toBe(`amender test: cannot read ${join(dir, 'private')}: permission denied\n`);
    expect(r.code).toBe(1);
  });

  it('amender apply --resource names the folder, with no stack, and exits 1', () => {
    const r = asNobody(['apply', '--policies', 'policies', '--resource', join(dir, 'private')]);
    expect(r.stderr).toBe(`amender apply: cannot read ${join(dir, 'private')}: permission denied\n`);
    expect(r.code).toBe(1);
  });
});

describe('a report file that cannot be written', () => {
  it('amender test -o junit --output-file in a missing folder: one line naming it, exit 1, no stack', () => {
    const out = join(tmpdir(), 'amender-no-such-folder', 'report.xml');
    const r = amender(['test', 'test/kyverno-library-mpol/psa/add-psa-labels', '-o', 'junit', '--output-file', out]);
    expect(r.stderr).toBe(`amender test: cannot write ${out}: no such file or folder\n`);
    expect(r.code).toBe(1);
  });
});

describe('standard output', () => {
  it('whose reader leaves early (EPIPE) ends the CLI quietly with 141, as SIGPIPE would', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ expression: `1 + ${i}` })).join('\n') + '\n';
    const child = spawn(process.execPath, [...ENTRY, 'eval', '--batch'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.stdin.on('error', () => {}).end(lines);
    // Like `| head -1`: take the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((done) => child.on('close', (c, s) => done([c, s])));
    clearTimeout(timer);
    expect(stderr).toBe('');
    expect(signal).toBe(null);
    expect(code).toBe(141);
  });

  /** The CLI's review of REVIEW with its standard output on the device at `path`. */
  const reviewInto = (path: string) => {
    const fd = openSync(path, 'w');
    try {
      return amender(['review', '--policies', 'policies', '--input', REVIEW], { stdio: ['pipe', fd, 'pipe'] });
    } finally {
      closeSync(fd);
    }
  };

  it('that cannot be written is an error (a full device)', () => {
    const full = reviewInto('/dev/full');
    expect(full.stderr).toBe('amender: cannot write standard output: ENOSPC: no space left on device, write\n');
    expect(full.code).toBe(1);
  });

  it('a discarded standard output (>/dev/null) is not an error', () => {
    const r = reviewInto('/dev/null');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it("nor one discarded as Python's subprocess.DEVNULL and Node's stdio 'ignore' discard it (/dev/null read-write: what Node makes of a closed one too, >&-)", () => {
    const r = amender(['validate', 'policies'], { stdio: ['pipe', 'ignore', 'pipe'] });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const denied = amender(['validate', join(ROOT, 'test', 'fixtures', 'no-such-folder')], { stdio: ['pipe', 'ignore', 'pipe'] });
    expect(denied.code).toBe(1);
  });
});

describe('a FIFO, socket or device found in a folder', () => {
  const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: shop}\ndata: {a: b}\n';
  let dir: string;
  const fifos: string[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'amender-fifo-'));
  });
  afterEach(async () => {
    // A read left blocked on a FIFO (what this guards against) is let go: a writer opens and closes it.
    for (const fifo of fifos.splice(0)) await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => {});
    rmSync(dir, { recursive: true, force: true });
  });
  const mkfifo = (path: string) => {
    execFileSync('mkfifo', [path]);
    fifos.push(path);
  };
  // Killed after 10 s: a read blocked on the FIFO would otherwise wait for a writer for ever.
  const run = (args: string[]) => amender(args, { timeout: 10_000 });

  it('amender apply --resource DIR refuses it by name and exits 1, without waiting for a writer', () => {
    writeFileSync(join(dir, 'a.yaml'), CONFIGMAP);
    mkfifo(join(dir, 'pipe.yaml'));
    const r = run(['apply', '--policies', 'policies', '--resource', dir]);
    expect(r.signal).toBe(null);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`amender apply: cannot read ${dir}/pipe.yaml: not a regular file but a FIFO (named pipe); a file found in a folder is read only when it is a regular file\n`);
    expect(r.stdout).toBe('');
  });

  it('a socket and a device are refused the same way', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock.yaml'), resolve));
    try {
      const socket = await runAsync(['apply', '--policies', 'policies', '--resource', dir]);
      expect(socket.code).toBe(1);
      expect(socket.stderr).toBe(`amender apply: cannot read ${dir}/sock.yaml: not a regular file but a socket; a file found in a folder is read only when it is a regular file\n`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    const device = run(['apply', '--policies', 'policies', '--resource', dir]);
    expect(device.code).toBe(1);
    expect(device.stderr).toBe(`amender apply: cannot read ${dir}/zero.yaml: not a regular file but a device; a file found in a folder is read only when it is a regular file\n`);
  });

  it('amender test DIR reports a FIFO named kyverno-test.yaml as a failed test instead of waiting for a writer', () => {
    mkdirSync(join(dir, 'a'));
    mkfifo(join(dir, 'a', 'kyverno-test.yaml'));
    const r = run(['test', dir]);
    expect(r.signal).toBe(null);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`Error: ${dir}/a/kyverno-test.yaml: cannot read ${dir}/a/kyverno-test.yaml: not a regular file but a FIFO (named pipe)`);
  });

  it('a FIFO named on the command line is read as kubectl reads one: from its writer', async () => {
    const fifo = join(dir, 'resource.yaml');
    mkfifo(fifo);
    const result = runAsync(['apply', '--policies', 'policies', '--resource', fifo]);
    const writer = await open(fifo, 'w');
    await writer.writeFile(CONFIGMAP);
    await writer.close();
    const r = await result;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('name: cm');
  });
});

/** The CLI in a child process, not blocking this one (a socket or a FIFO's writer is served from here). */
function runAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...ENTRY, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}
