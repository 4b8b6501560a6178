/**
 * Shared by the runtime tests: the built bundles, one corpus of HTTP calls (reviews the policies patch,
 * leave alone, and bad input), the policy files they run against, and the built Node server's answers
 * to the same calls — the reference every other runtime must equal.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../node/built.js';
import { startBundle } from '../node/bundle.js';

export { ROOT };
export const LAMBDA_BUNDLE = join(ROOT, 'dist/lambda/index.mjs');
export const WORKERS_BUNDLE = join(ROOT, 'dist/workers/index.js');
export const NODE_BUNDLE = join(ROOT, 'dist/node/main.js');

/** Builds the runtime bundles when a test runs without `npm test` (which builds first). */
export function ensureBuilt(): void {
  const missing = [
    ['node', NODE_BUNDLE],
    ['lambda', LAMBDA_BUNDLE],
    ['workers', WORKERS_BUNDLE],
  ].filter(([, file]) => !existsSync(file));
  if (missing.length === 0) return;
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), ...missing.map(([name]) => name)], { cwd: ROOT, stdio: 'ignore' });
}

export interface HttpCase {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface HttpReply {
  status: number;
  contentType: string | null;
  body: unknown;
}

const json = { 'content-type': 'application/json' };

function review(uid: string, request: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid, userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller' }, dryRun: false, ...request } });
}

const podGvk = { kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' } };

/** The calls every runtime answers; the first ones are reviews that the corpus' policies patch. */
export function httpCases(): HttpCase[] {
  const sample = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
  const debugPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'web', image: 'nginx:1.27', env: [{ name: 'DEBUG_SQL', value: '1' }, { name: 'PORT', value: '8080' }] },
        { name: 'cache', image: 'redis' },
      ],
    },
  };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'shop', labels: { app: 'api' } },
    spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'registry.example.com/api:1.0' }] } } },
  };
  return [
    { name: 'the sample Pod review (sidecar, labels, defaults)', method: 'POST', path: '/mutate', body: sample, headers: json },
    {
      name: 'a Pod with debug variables and Docker Hub images',
      method: 'POST',
      path: '/mutate',
      headers: json,
      body: review('11111111-0000-4000-8000-000000000001', { ...podGvk, name: 'web', namespace: 'shop', operation: 'CREATE', object: debugPod, oldObject: null }),
    },
    {
      name: 'a Deployment',
      method: 'POST',
      path: '/mutate',
      headers: json,
      body: review('11111111-0000-4000-8000-000000000002', {
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        name: 'api',
        namespace: 'shop',
        operation: 'CREATE',
        object: deployment,
        oldObject: null,
      }),
    },
    {
      name: 'a Pod deletion (nothing to do)',
      method: 'POST',
      path: '/mutate',
      headers: json,
      body: review('11111111-0000-4000-8000-000000000003', { ...podGvk, name: 'web', namespace: 'shop', operation: 'DELETE', object: null, oldObject: debugPod }),
    },
    { name: 'malformed JSON', method: 'POST', path: '/mutate', body: '{"kind":', headers: json },
    { name: 'a review of the wrong kind', method: 'POST', path: '/mutate', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }), headers: json },
    { name: 'a GET on /mutate', method: 'GET', path: '/mutate' },
    { name: 'an unknown route', method: 'GET', path: '/nowhere' },
    { name: 'liveness', method: 'GET', path: '/healthz' },
  ];
}

/** A reply with what may differ between two correct runs taken out (load times). */
export function comparable(reply: HttpReply): HttpReply {
  const body = reply.body as Record<string, unknown> | null;
  if (body && typeof body === 'object' && 'loadedAt' in body) {
    const { loadedAt: _loadedAt, ...rest } = body;
    return { ...reply, body: rest };
  }
  return reply;
}

export async function readReply(response: Response): Promise<HttpReply> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body };
}

/** Sends every case to `origin` over loopback HTTP. */
export async function askAll(origin: string, cases: readonly HttpCase[], extraHeaders: Record<string, string> = {}): Promise<HttpReply[]> {
  const replies: HttpReply[] = [];
  for (const c of cases) {
    const response = await fetch(new URL(c.path, origin), {
      method: c.method,
      headers: { ...c.headers, ...extraHeaders },
      ...(c.body !== undefined ? { body: c.body } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    replies.push(await readReply(response));
  }
  return replies;
}

/** The policy files of the corpus: the bundled set (policies/) and a Kyverno ClusterPolicy with foreach. */
export function corpusPolicyFiles(): { name: string; text: string }[] {
  const dir = join(ROOT, 'policies');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }));
  files.push({ name: 'kyverno-foreach.yaml', text: readFileSync(join(ROOT, 'test/fixtures/kyverno/foreach/policy.yaml'), 'utf8') });
  return files;
}

/** The files written to a fresh folder; `dispose` removes it. */
export function policyFolder(files: readonly { name: string; text: string }[]): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'amender-runtime-policies-'));
  for (const f of files) writeFileSync(join(dir, f.name), f.text);
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The built Node server's answers to `cases` and its /readyz, with `sources` as AMENDER_POLICY_SOURCES
 * (default: the bundled set).
 */
export async function nodeReference(cases: readonly HttpCase[], sources?: string): Promise<{ replies: HttpReply[]; readyz: HttpReply }> {
  const server = await startBundle(sources ? { AMENDER_POLICY_SOURCES: sources } : {});
  try {
    const replies = await askAll(server.url, cases);
    const [readyz] = await askAll(server.url, [{ name: 'readiness', method: 'GET', path: '/readyz' }]);
    return { replies, readyz };
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
  }
}
