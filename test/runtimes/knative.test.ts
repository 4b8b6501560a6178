/**
 * The built Node bundle (dist/node/main.js) run the way infra/knative/service.yaml runs it: PORT and the
 * container's environment from the manifest, the policies from the manifest's ConfigMap laid out as the
 * kubelet mounts one (`..data` symlink to a timestamped folder, one link per key), HTTPS + HTTP/2 to an
 * API-server-like client (CA-verified, hostname checked, with a timeout), and Knative's probes.
 * (test/node covers the server's own HTTPS/H2 handling and lifecycle; this covers the deployment.)
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { h1Request, h2Request } from '../node/clients.js';
import { startBundle, type Running } from '../node/bundle.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { ensureBuilt, httpCases, ROOT } from './helpers.js';

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: { env: { name: string; value: string }[]; ports: { containerPort: number }[]; volumeMounts: { name: string; mountPath: string }[] }[]; volumes: { name: string; configMap: { name: string } }[] } } };
}

const manifests = parseAllDocuments(readFileSync(join(ROOT, 'infra/knative/service.yaml'), 'utf8')).map((d) => d.toJSON() as Manifest);
const service = manifests.find((m) => m.kind === 'Service')!;
const container = service.spec!.template.spec.containers[0];

/** Writes a ConfigMap's data the way the kubelet does: <dir>/..2026_.../<key>, ..data → that, <key> → ..data/<key>. */
function mountConfigMap(data: Record<string, string>): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'amender-configmap-'));
  const stamp = '..2026_12_02_10_00_00.000000001';
  mkdirSync(join(dir, stamp));
  for (const [key, text] of Object.entries(data)) writeFileSync(join(dir, stamp, key), text);
  symlinkSync(stamp, join(dir, '..data'));
  for (const key of Object.keys(data)) symlinkSync(join('..data', key), join(dir, key));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

let pki: TestPki;
let mount: { dir: string; dispose: () => void };
let server: Running;
let origin: string;

beforeAll(async () => {
  ensureBuilt();
  pki = makeTestPki();
  const policyVolume = service.spec!.template.spec.volumes[0];
  const configMap = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === policyVolume.configMap.name)!;
  mount = mountConfigMap(configMap.data!);
  const mountPath = container.volumeMounts.find((m) => m.name === policyVolume.name)!.mountPath;
  // The manifest's environment, with the mount path moved to where this test mounted the ConfigMap.
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value.replaceAll(mountPath, mount.dir)]));
  server = await startBundle({ ...env, AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` });
  origin = `https://localhost:${new URL(server.url).port}`;
});
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exit;
  mount?.dispose();
  pki?.dispose();
});

describe('the Node bundle as the Knative manifest runs it', () => {
  it('is ready once the ConfigMap policies are loaded, and live', async () => {
    const ready = await h2Request(origin, '/readyz', pki.ca, { method: 'GET', timeoutMs: 5000 });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: true, counts: { mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1 }, problems: [], sourceErrors: [] });
    const live = await h2Request(origin, '/healthz', pki.ca, { method: 'GET', timeoutMs: 5000 });
    expect(live.status).toBe(200);
  });

  it('answers a review over HTTP/2 and over HTTP/1.1, CA-verified, within the webhook timeout', async () => {
    const review = JSON.parse(httpCases()[1].body!) as { request: { object: { metadata: { labels: Record<string, string> } } } };
    const body = JSON.stringify(review);
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const h2 = await h2Request(origin, '/mutate', pki.ca, { body, headers, timeoutMs: 10_000 });
    const h1 = await h1Request(`${origin}/mutate`, { body, headers, ca: pki.ca, timeoutMs: 10_000 });
    expect(h2.alpn).toBe('h2');
    expect(h1.alpn).toBe('http/1.1');
    expect(h2.status).toBe(200);
    expect(JSON.parse(h1.body)).toEqual(JSON.parse(h2.body));
    // The ConfigMap's policy labels a Pod without a team label.
    const patch = JSON.parse(Buffer.from(JSON.parse(h2.body).response.patch as string, 'base64').toString('utf8'));
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'unassigned' }]);
  });

  it('refuses a client that does not trust its CA (as an API server without the caBundle would)', async () => {
    const otherPki = makeTestPki();
    try {
      await expect(h2Request(origin, '/healthz', otherPki.ca, { method: 'GET', timeoutMs: 5000 })).rejects.toThrow(/certificate|self-signed|unable to verify/i);
    } finally {
      otherPki.dispose();
    }
  });
});
