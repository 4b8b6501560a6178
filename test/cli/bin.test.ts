/** The built `amender` command as a user runs it: a child process, real files, stdin, exit codes. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';

function amender(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => ensureBuilt());

describe('bin/amender.js', () => {
  it('validates the bundled policies', () => {
    const r = amender(['validate', 'policies']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 4, mutatingAdmissionPolicyBindings: 4, .*params: 1, .*problems: 0\)\n$/);
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
});
