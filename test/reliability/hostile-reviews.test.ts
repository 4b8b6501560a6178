/**
 * Hostile AdmissionReviews against the built Node server (dist/node/main.js) with the 50-policy set
 * (40 MutatingAdmissionPolicies, 10 Kyverno policies) and review workers: every body is answered with
 * 200 (a reply whose patch applies to the object under a strict RFC 6902 applier) or a 4xx Status, never a
 * 5xx, and the server keeps answering /healthz. An admission.k8s.io/v1beta1 review is answered like a v1
 * one, in v1beta1 (a webhook answers in the version it was sent); the CLI gives the same reply.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';
import { waitFor, type Running } from '../node/bundle.js';
import { applyReply, HOSTILE_BODIES, REVIEW, type Obj } from './hostile-inputs.js';
import { rawExchange, statusOf } from './raw-http.js';
import { startReady } from './started.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const CASES = HOSTILE_BODIES;

describe('hostile reviews against the built server', () => {
  let server: Running;
  beforeAll(async () => {
    ensureBuilt();
    server = await startReady({ AMENDER_POLICY_SOURCES: `file://${ROOT}bench/fixtures/policies-50`, AMENDER_WORKERS: '2' });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it('answers each with 200 or a 4xx Status, never a 5xx, and /healthz stays up', async () => {
    for (const [name, body, expected] of CASES) {
      const res = await fetch(`${server.url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(20_000) });
      const reply = (await res.json()) as Obj;
      expect(res.status, `${name}: ${JSON.stringify(reply).slice(0, 300)}`).toBe(expected);
      if (expected === 200) {
        expect(reply.response.uid, name).toBe('hostile-1');
        applyReply(reply, body);
      } else {
        expect(reply).toMatchObject({ kind: 'Status', code: 400 });
      }
      expect((await fetch(`${server.url}/healthz`)).status, name).toBe(200);
    }
    // Log lines are written in batches (src/adapters/node-log.ts): wait for every review's.
    const reviews = () => server.lines.filter((l) => l.msg === 'request' && l.path === '/mutate');
    await waitFor('a log line per review', () => reviews().length >= CASES.length);
    expect(reviews().filter((l) => Number(l.status) >= 500)).toEqual([]);
  });

  it('answers a chunked review as it answers one with a Content-Length', async () => {
    const port = Number(new URL(server.url).port);
    const chunks = REVIEW.match(/.{1,37}/gs)!.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('');
    const reply = await rawExchange(port, `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`);
    expect(statusOf(reply)).toBe(200);
    const chunked = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as Obj;
    const plain = (await (await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW })).json()) as Obj;
    expect(chunked).toEqual(plain);
  });

  it('answers an admission.k8s.io/v1beta1 review in v1beta1, with the patch a v1 review gets', async () => {
    const v1 = (await (await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW })).json()) as Obj;
    const res = await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v1beta1"') });
    expect(res.status).toBe(200);
    const v1beta1 = (await res.json()) as Obj;
    expect(v1.response.patch).toBeDefined();
    expect(v1beta1).toEqual({ ...v1, apiVersion: 'admission.k8s.io/v1beta1' });
    // Another version is still refused.
    const v2 = await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v2"') });
    expect(v2.status).toBe(400);
  });
});

describe('amender review', () => {
  it('answers a v1beta1 review in v1beta1, as the server does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-v1beta1-'));
    try {
      const input = join(dir, 'review.json');
      writeFileSync(input, REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v1beta1"'));
      const out = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [CLI_BIN, 'review', '--policies', `${ROOT}bench/fixtures/policies-50`, '--input', input], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
      );
      const reply = JSON.parse(out) as Obj;
      expect(reply.apiVersion).toBe('admission.k8s.io/v1beta1');
      expect(reply.response).toMatchObject({ uid: 'hostile-1', allowed: true, patchType: 'JSONPatch' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
