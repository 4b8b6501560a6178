/**
 * The built Node server (dist/node/main.js) reading its policy sets from their sources, over real HTTP:
 * a folder that changes under the running server, S3 (s3rver on loopback) refreshed on an interval and
 * on SIGHUP, storage going down (the last good set serves, /readyz and /metrics say so) and coming back,
 * and two clusters with their own sources and secrets (one from the environment, one from the config
 * file), the path secret kept out of the access log.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { labelPolicy, patchOf, podReview, startS3, type TestS3 } from '../sources/helpers.js';
import { ensureBuilt } from './built.js';
import { startBundle, waitFor, type Running } from './bundle.js';

beforeAll(() => ensureBuilt());

async function review(url: string, path = '/mutate', headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(podReview()),
    signal: AbortSignal.timeout(5000),
  });
  const body = (await res.json()) as Record<string, any>;
  return { status: res.status, body, patch: res.status === 200 ? patchOf(body) : [] };
}

/** The value the reply's patch gives label `key`, if any. */
async function labelFrom(url: string, key: string, path?: string, headers?: Record<string, string>): Promise<unknown> {
  const r = await review(url, path, headers);
  return (r.patch as { path: string; value: unknown }[]).find((op) => op.path === `/metadata/labels/${key}`)?.value;
}

async function readyz(url: string, path = '/readyz', headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, { headers, signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function metric(url: string, name: string, set: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const m = new RegExp(`^${name}\\{policy_set="${set}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Waits for a log line with these fields (lines arrive through a pipe, after the replies they follow). */
function logged(server: Running, fields: Record<string, unknown>): Promise<void> {
  const matches = (l: Record<string, unknown>) => Object.entries(fields).every(([k, v]) => l[k] === v);
  return waitFor(`a log line ${JSON.stringify(fields)}`, () => server.lines.some(matches));
}

/** What the server's S3 client needs to reach s3rver. */
function s3Env(s3: TestS3): Record<string, string> {
  return {
    AMENDER_S3_ENDPOINT: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

describe('a folder source under the running server', () => {
  let dir: string;
  let server: Running;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amender-folder-'));
    await writeFile(join(dir, 'label.yaml'), labelPolicy('team', 'team', 'one'));
    server = await startBundle({ AMENDER_POLICY_SOURCES: `file://${dir}` });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the folder, and a new version of a file as soon as it is written', async () => {
    expect(await labelFrom(server.url, 'team')).toBe('one');
    // An atomic replace, as an editor or the kubelet's ConfigMap update does it.
    await writeFile(join(dir, '.label.yaml.tmp'), labelPolicy('team', 'team', 'two'));
    await rename(join(dir, '.label.yaml.tmp'), join(dir, 'label.yaml'));
    await waitFor('the new version served', async () => (await labelFrom(server.url, 'team')) === 'two');
    await writeFile(join(dir, 'owner.yaml'), labelPolicy('owner', 'owner', 'ops'));
    await waitFor('the added file served', async () => (await labelFrom(server.url, 'owner')) === 'ops');
    await logged(server, { msg: 'policy set applied', policySet: 'default', documents: 4 });
  });

  it('keeps the last good set when the folder goes, and says so in /readyz', async () => {
    await rm(dir, { recursive: true, force: true });
    await waitFor('the error reported', async () => (await readyz(server.url)).body.sourceErrors.length > 0);
    const ready = await readyz(server.url);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, source: `file://${dir}`, counts: { mutatingAdmissionPolicies: 2 } });
    expect(ready.body.sourceErrors[0]).toMatch(new RegExp(`^file://${dir}: ${dir}: no such file or folder \\(the set loaded at .* stays in force\\)$`));
    expect(await labelFrom(server.url, 'team')).toBe('two');
  });
});

describe('a folder source reached through a link swapped to each new release', () => {
  it('follows the swap without a refresh interval, the old release left in place (ln -sfn, git-sync, a deploy tool)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'amender-releases-'));
    for (const [release, value] of [['1', 'one'], ['2', 'two']]) {
      await mkdir(join(dir, 'releases', release), { recursive: true });
      await writeFile(join(dir, 'releases', release, 'label.yaml'), labelPolicy('team', 'team', value));
    }
    await symlink(join(dir, 'releases', '1'), join(dir, 'current'));
    const server = await startBundle({ AMENDER_POLICY_SOURCES: `file://${join(dir, 'current')}`, AMENDER_REFRESH_SECONDS: '0' });
    try {
      expect(await labelFrom(server.url, 'team')).toBe('one');
      // An atomic swap: a new link renamed over the old one. Nothing changes inside the folder watched.
      await symlink(join(dir, 'releases', '2'), join(dir, 'current.new'));
      await rename(join(dir, 'current.new'), join(dir, 'current'));
      await waitFor('the new release served', async () => (await labelFrom(server.url, 'team')) === 'two');
    } finally {
      expect(await server.stop()).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('S3 sources of the running server', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.dispose();
  });

  it('loads, refreshes on its interval, keeps the last good set while storage is down, and recovers', async () => {
    await s3.put('default/label.yaml', labelPolicy('team', 'team', 'from-s3'));
    const server = await startBundle({ ...s3Env(s3), AMENDER_POLICY_SOURCES: 's3://policies/default', AMENDER_REFRESH_SECONDS: '1' });
    try {
      expect(await labelFrom(server.url, 'team')).toBe('from-s3');
      expect((await readyz(server.url)).body).toMatchObject({ ready: true, source: 's3://policies/default', sourceErrors: [] });

      await s3.put('default/label.yaml', labelPolicy('team', 'team', 'changed'));
      await waitFor('the changed object served', async () => (await labelFrom(server.url, 'team')) === 'changed');
      const lastSuccess = await metric(server.url, 'amender_policy_refresh_last_success_timestamp_seconds', 'default');
      expect(lastSuccess).toBeGreaterThan(Date.now() / 1000 - 30);

      await s3.stop();
      await waitFor('the failure reported', async () => (await readyz(server.url)).body.sourceErrors.length > 0);
      const down = await readyz(server.url);
      expect(down.status).toBe(200);
      expect(down.body.ready).toBe(true);
      expect(down.body.sourceErrors[0]).toMatch(/^s3:\/\/policies\/default: cannot list s3:\/\/policies\/default\/: .* \(the set loaded at .* stays in force\)$/);
      expect(await labelFrom(server.url, 'team')).toBe('changed');
      expect(await metric(server.url, 'amender_policy_refresh_failures_total', 'default')).toBeGreaterThanOrEqual(1);
      expect(await metric(server.url, 'amender_policy_source_errors', 'default')).toBe(1);
      await logged(server, { level: 'error', msg: 'policy sources unreadable', policySet: 'default' });

      await s3.restart();
      await waitFor('recovery reported', async () => (await readyz(server.url)).body.sourceErrors.length === 0);
      expect(await metric(server.url, 'amender_policy_source_errors', 'default')).toBe(0);
      expect(await metric(server.url, 'amender_policy_refresh_total', 'default')).toBeGreaterThanOrEqual(3);
      await logged(server, { msg: 'policy sources readable again', policySet: 'default' });
    } finally {
      // The refresh timer must not keep the process alive past SIGTERM.
      expect(await server.stop()).toBe(0);
    }
  });

  it('refreshes every set on SIGHUP when no interval is set', async () => {
    await s3.clear();
    await s3.put('hup/label.yaml', labelPolicy('team', 'team', 'before'));
    const server = await startBundle({ ...s3Env(s3), AMENDER_POLICY_SOURCES: 's3://policies/hup', AMENDER_REFRESH_SECONDS: '0' });
    try {
      expect(await labelFrom(server.url, 'team')).toBe('before');
      await s3.put('hup/label.yaml', labelPolicy('team', 'team', 'after'));
      await new Promise((r) => setTimeout(r, 1500));
      expect(await labelFrom(server.url, 'team')).toBe('before'); // no interval: nothing polls
      server.child.kill('SIGHUP');
      await waitFor('the SIGHUP refresh served', async () => (await labelFrom(server.url, 'team')) === 'after');
      await logged(server, { msg: 'reloading', signal: 'SIGHUP' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('two clusters with their own sources and secrets', () => {
  const SECRET = { alpha: 'a9'.repeat(32), beta: 'b8'.repeat(32) };
  let s3: TestS3;
  let dir: string;
  let server: Running;
  beforeAll(async () => {
    s3 = await startS3();
    await s3.put('clusters/beta/label.yaml', labelPolicy('region', 'region', 'beta'));
    dir = await mkdtemp(join(tmpdir(), 'amender-clusters-'));
    await writeFile(join(dir, 'alpha.yaml'), labelPolicy('region', 'region', 'alpha'));
    await writeFile(join(dir, 'default.yaml'), labelPolicy('region', 'region', 'default'));
    // beta comes from the config file, alpha from the environment.
    const config = join(dir, 'amender.yaml');
    await writeFile(config, `clusters:\n  beta:\n    sources: [s3://policies/clusters/beta]\n    secretHashes: ['${await hashSecret(SECRET.beta)}']\n    refreshSeconds: 30\n`);
    server = await startBundle({
      ...s3Env(s3),
      AMENDER_CONFIG: config,
      AMENDER_POLICY_SOURCES: join(dir, 'default.yaml'),
      AMENDER_CLUSTERS: 'alpha',
      AMENDER_CLUSTER_ALPHA_SOURCES: `file://${join(dir, 'alpha.yaml')}`,
      AMENDER_CLUSTER_ALPHA_SECRET_HASHES: await hashSecret(SECRET.alpha),
    });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await s3?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers each cluster from its own set, with the secret as a bearer token or a path segment', async () => {
    expect(server.lines.find((l) => l.msg === 'listening')).toMatchObject({ clusters: ['alpha', 'beta'] });
    expect(await labelFrom(server.url, 'region', '/clusters/alpha/mutate', { authorization: `Bearer ${SECRET.alpha}` })).toBe('alpha');
    expect(await labelFrom(server.url, 'region', `/clusters/beta/${SECRET.beta}/mutate`)).toBe('beta');
    expect(await labelFrom(server.url, 'region')).toBe('default');
    const ready = await readyz(server.url, '/clusters/beta/readyz', { authorization: `Bearer ${SECRET.beta}` });
    expect(ready).toMatchObject({ status: 200, body: { ready: true, source: 's3://policies/clusters/beta', counts: { mutatingAdmissionPolicies: 1 } } });
    expect(await metric(server.url, 'amender_policy_documents', 'alpha')).toBe(2);
    expect(await metric(server.url, 'amender_policy_documents', 'beta')).toBe(2);
  });

  it('answers 401 to another cluster’s secret and 404 to an unknown cluster', async () => {
    expect((await review(server.url, '/clusters/alpha/mutate', { authorization: `Bearer ${SECRET.beta}` })).status).toBe(401);
    expect((await review(server.url, `/clusters/beta/${SECRET.alpha}/mutate`)).status).toBe(401);
    expect((await readyz(server.url, '/clusters/alpha/readyz')).status).toBe(401);
    const unknown = await review(server.url, '/clusters/gamma/mutate', { authorization: `Bearer ${SECRET.alpha}` });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'no cluster named "gamma" is served here' } });
  });

  it('keeps path secrets out of the access log', async () => {
    await logged(server, { msg: 'request', path: '/clusters/beta/[redacted]/mutate', status: 200 });
    await logged(server, { msg: 'request', path: '/clusters/beta/[redacted]/mutate', status: 401 });
    await logged(server, { msg: 'request', path: '/clusters/gamma/mutate', status: 404 });
    const everything = JSON.stringify(server.lines) + server.stderr();
    for (const secret of Object.values(SECRET)) expect(everything).not.toContain(secret);
  });
});

describe('configuration errors of sources and clusters', () => {
  it('refuse to start, listing every problem', async () => {
    const failed = await startBundle({
      AMENDER_POLICY_SOURCES: 'r2://POLICIES/x',
      AMENDER_REFRESH_SECONDS: 'soon',
      AMENDER_CLUSTERS: 'prod',
      AMENDER_CLUSTER_PROD_SOURCES: 'ftp://x',
      AMENDER_CLUSTER_PROD_SECRET_HASHES: 'hunter2',
      AMENDER_S3_ENDPOINT: 'not a url',
    }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/exited with 2/);
    expect(failed).toContain('AMENDER_REFRESH_SECONDS: expected whole seconds from 0 to 86400, got "soon"');
    expect(failed).toContain('cluster prod: secret hash #1 is not of the form sha256:<64 lowercase hex digits>');
    expect(failed).not.toContain('hunter2');
  });

  it('names sources this server cannot read', async () => {
    const failed = await startBundle({ AMENDER_POLICY_SOURCES: 'r2://POLICIES/x,s3://policies/p', AMENDER_S3_ENDPOINT: 'not a url' }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toContain('AMENDER_POLICY_SOURCES: policy source r2://POLICIES/x: r2:// sources are not available on the Node server (available: bundled, file://, s3://)');
    expect(failed).toContain('policy source s3://policies/p: AMENDER_S3_ENDPOINT: not a URL: "not a url"');
  });
});
