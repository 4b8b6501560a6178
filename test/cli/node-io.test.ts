/**
 * The CLI's real input and output (src/cli/node-io.ts) as a user meets them: src/cli/bin.ts (the entry of
 * the bundle) run from source in a child process, so these run without `npm run build`.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
});
