/**
 * Issue 9, "a bad update never takes a good policy away":
 *  (a) a policy file cut mid-expression (the YAML still parses, the CEL does not compile), then SIGHUP: the
 *      built server keeps mutating with the last good version, and /readyz, /metrics and the log say so;
 *  (b) a new S3 object whose CEL does not compile, next to good ones: the good ones apply, the bad one is
 *      reported and left out;
 *  (c) a ConfigMap-style `..data` swap loop under continuous refreshes and reviews: no reply ever mixes
 *      the generation of one policy with that of another;
 *  (d) the CLI refuses the same documents: `validate` counts them and exits 1, `apply` leaves them out.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createApp } from '../../src/server/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import { fakeIO } from '../cli/fake-io.js';
import { ensureBuilt } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { labelPolicy, patchOf, podReview, startS3, type TestS3 } from '../sources/helpers.js';

beforeAll(() => ensureBuilt());

interface Reply {
  status: number;
  allowed?: boolean;
  message?: string;
  labels: Record<string, unknown>;
}

/** The labels a reply's patch adds (one `add` per label, as labelPolicy writes them). */
function labelsOf(body: { response?: { patch?: string } }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const op of patchOf(body) as { op: string; path: string; value: unknown }[]) {
    const m = /^\/metadata\/labels\/(.+)$/.exec(op.path);
    if (op.op === 'add' && m) out[m[1]] = op.value;
  }
  return out;
}

async function review(url: string): Promise<Reply> {
  const res = await fetch(`${url}/mutate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(podReview()),
    signal: AbortSignal.timeout(5000),
  });
  const body = (await res.json()) as { response?: { allowed?: boolean; patch?: string; status?: { message?: string } } };
  return { status: res.status, allowed: body.response?.allowed, message: body.response?.status?.message, labels: labelsOf(body) };
}

async function readyz(url: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function metric(url: string, name: string, set = 'default'): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const m = new RegExp(`^${name}\\{policy_set="${set}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * labelPolicy's documents with the binding first, as a file cut short keeps its beginning: here the
 * binding survives the cut and the policy it names is the broken one.
 */
function bindingFirst(name: string, key: string, value: string): string {
  const [policy, binding] = labelPolicy(name, key, value).split('---\n');
  return `${binding}---\n${policy}`;
}

/** The same text cut in the middle of the CEL expression: still YAML (a block scalar), no longer CEL. */
function cutMidExpression(text: string): string {
  const at = text.indexOf("expression: '");
  expect(at).toBeGreaterThan(0);
  const expression = text.slice(at + "expression: '".length);
  const half = expression.slice(0, expression.indexOf('/metadata/lab') + '/metadata/lab'.length);
  return `${text.slice(0, at)}expression: >-\n          ${half}\n`;
}

describe('(a) a policy file cut mid-expression, then SIGHUP', () => {
  let dir: string;
  let server: Running;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amender-reload-'));
    await writeFile(join(dir, 'team.yaml'), bindingFirst('team', 'team', 'one'));
    await writeFile(join(dir, 'owner.yaml'), labelPolicy('owner', 'owner', 'ops'));
    server = await startBundle({ AMENDER_POLICY_SOURCES: `file://${dir}`, AMENDER_REFRESH_SECONDS: '0' });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the last good version in force and reports the refused one', async () => {
    expect((await review(server.url)).labels).toEqual({ team: 'one', owner: 'ops' });
    const cut = cutMidExpression(bindingFirst('team', 'team', 'two'));
    await writeFile(join(dir, '.team.yaml.tmp'), cut);
    await rename(join(dir, '.team.yaml.tmp'), join(dir, 'team.yaml'));
    server.child.kill('SIGHUP');
    await waitFor('/readyz reporting the refused version', async () => (await readyz(server.url)).body.problems?.length > 0);

    const after = await review(server.url);
    expect(after.status).toBe(200);
    expect(after.allowed, after.message).toBe(true);
    expect(after.labels).toEqual({ team: 'one', owner: 'ops' });

    const ready = await readyz(server.url);
    expect(ready.status).toBe(200);
    expect(ready.body.counts.mutatingAdmissionPolicies).toBe(2);
    const problems = ready.body.problems as { source: string; name?: string; path: string; message: string; effect: string }[];
    expect(problems.length).toBeGreaterThan(0);
    for (const p of problems) {
      expect(p).toMatchObject({ source: join(dir, 'team.yaml'), name: 'team', path: 'spec.mutations[0].jsonPatch.expression', effect: 'ignored' });
      expect(p.message).toContain('(the last good version of this document stays in force)');
    }
    expect(await metric(server.url, 'amender_policy_documents_refused')).toBe(1);
    await waitFor('a "policy problem" log line', () => server.lines.some((l) => l.msg === 'policy problem' && l.name === 'team'));

    // Fixed: the new version is accepted and the problem is gone.
    await writeFile(join(dir, '.team.yaml.tmp'), bindingFirst('team', 'team', 'three'));
    await rename(join(dir, '.team.yaml.tmp'), join(dir, 'team.yaml'));
    server.child.kill('SIGHUP');
    await waitFor('the fixed version in force', async () => (await review(server.url)).labels.team === 'three');
    expect((await readyz(server.url)).body.problems).toEqual([]);
    expect(await metric(server.url, 'amender_policy_documents_refused')).toBe(0);
  });
});

describe('(b) a new S3 object whose CEL does not compile, next to good policies', () => {
  let s3: TestS3;
  let server: Running | undefined;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    await s3.dispose();
  });

  it('applies the good ones and reports the bad one, left out', async () => {
    await s3.put('set/team.yaml', labelPolicy('team', 'team', 'one'));
    await s3.put('set/owner.yaml', labelPolicy('owner', 'owner', 'ops'));
    await s3.put('set/typo.yaml', labelPolicy('typo', 'typo', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/typo", value: object.metadata.name +}]'));
    server = await startBundle({
      AMENDER_S3_ENDPOINT: s3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AMENDER_POLICY_SOURCES: 's3://policies/set',
      AMENDER_REFRESH_SECONDS: '0',
    });
    await waitFor('the set loaded', async () => (await readyz(server!.url)).status === 200);
    const reply = await review(server.url);
    expect(reply.allowed, reply.message).toBe(true);
    expect(reply.labels).toEqual({ owner: 'ops', team: 'one' });
    const ready = await readyz(server.url);
    expect(ready.body.counts.mutatingAdmissionPolicies).toBe(2);
    expect(ready.body.problems).toEqual([
      expect.objectContaining({ source: 's3://policies/set/typo.yaml', kind: 'MutatingAdmissionPolicy', name: 'typo', path: 'spec.mutations[0].jsonPatch.expression', effect: 'ignored' }),
    ]);
    expect(await metric(server.url, 'amender_policy_documents_refused')).toBe(1);
  });
});

describe('(c) a ConfigMap-style ..data swap under continuous refreshes and reviews', () => {
  const SWAPS = 30;
  const REVIEWS_PER_SWAP = 10;
  // Between a.yaml and z.yaml in name order, so that a listing takes a while to get from one to the other.
  const FILLERS = 40;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amender-configmap-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const files = ['a.yaml', ...Array.from({ length: FILLERS }, (_, i) => `m${String(i).padStart(2, '0')}.yaml`), 'z.yaml'];

  /** One generation as the kubelet writes it: a new `..<timestamp>` folder, `..data` renamed over, the old one removed. */
  async function publish(generation: number): Promise<void> {
    const folder = `..2026_01_01_00_00_${String(generation).padStart(2, '0')}.000000001`;
    await mkdir(join(dir, folder));
    const value = `g${generation}`;
    await writeFile(join(dir, folder, 'a.yaml'), labelPolicy('a', 'gen-a', value));
    await writeFile(join(dir, folder, 'z.yaml'), labelPolicy('z', 'gen-z', value));
    for (const f of files.slice(1, -1)) {
      await writeFile(join(dir, folder, f), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: f.replace('.yaml', ''), namespace: 'default' }, data: { generation: value } }));
    }
    await symlink(folder, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    if (generation > 0) await rm(join(dir, `..2026_01_01_00_00_${String(generation - 1).padStart(2, '0')}.000000001`), { recursive: true, force: true });
  }

  it(`${SWAPS} swaps, at least ${SWAPS * REVIEWS_PER_SWAP} reviews: no reply mixes two generations`, async () => {
    await publish(0);
    for (const f of files) await symlink(`..data/${f}`, join(dir, f));
    const refresher = new PolicySetRefresher({ name: 'configmap', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });
    const { app } = createApp({ policies: refresher.provider });
    expect((await refresher.refresh()).outcome).toBe('applied');

    const mixed: string[] = [];
    let reviews = 0;
    const check = async (): Promise<Record<string, unknown>> => {
      const res = await app.fetch(new Request('http://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(podReview()) }));
      const labels = labelsOf((await res.json()) as { response?: { patch?: string } });
      reviews++;
      if (labels['gen-a'] !== labels['gen-z']) mixed.push(`review ${reviews}: a=${String(labels['gen-a'])} z=${String(labels['gen-z'])}`);
      return labels;
    };

    for (let g = 1; g <= SWAPS; g++) {
      let swapped = false;
      const swap = publish(g).then(() => (swapped = true));
      // Refresh and review back to back while the swap is under way, then a few times more.
      let after = 0;
      while (!swapped || after < REVIEWS_PER_SWAP) {
        await refresher.refresh();
        await check();
        if (swapped) after++;
      }
      await swap;
    }
    expect(mixed).toEqual([]);
    expect(reviews).toBeGreaterThanOrEqual(SWAPS * REVIEWS_PER_SWAP);
    await refresher.refresh();
    const last = refresher.provider().set!;
    expect(last.mutatingPolicies.map((p) => p.policy.name)).toEqual(['a', 'z']);
    expect(last.counts.params).toBe(FILLERS);
    expect(await check()).toEqual({ 'gen-a': `g${SWAPS}`, 'gen-z': `g${SWAPS}` });
  }, 60_000);
});

describe('(d) the CLI refuses what the server refuses', () => {
  const typo = labelPolicy('typo', 'typo', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/typo", value: object.metadata.name +}]');
  const good = labelPolicy('team', 'team', 'one');
  const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop, labels: {app: web}}\nspec:\n  containers: [{name: web, image: nginx}]\n';

  it('validate counts the refused file and exits 1', async () => {
    const io = fakeIO({ 'good.yaml': good, 'typo.yaml': typo });
    expect(await runCli(['validate', 'good.yaml', 'typo.yaml'], io)).toBe(1);
    const lines = io.stderr.trim().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^typo\.yaml#0 MutatingAdmissionPolicy\/typo: spec\.mutations\[0\]\.jsonPatch\.expression: .* \(ignored\)$/));
    expect(lines).toContainEqual('1 file refused, whole or in part (a server keeps the last good version in force, or leaves a new one out): typo.yaml');
    expect(lines.at(-1)).toMatch(/^1 problem \(mutatingAdmissionPolicies: 1, /);
  });

  it('apply leaves the refused policy out and applies the others', async () => {
    const io = fakeIO({ 'good.yaml': good, 'typo.yaml': typo, 'pod.yaml': pod });
    expect(await runCli(['apply', '--policies', 'good.yaml', 'typo.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(io.stdout).toContain('team: one');
    expect(io.stdout).not.toContain('typo');
    expect(io.stderr).toMatch(/^warning: the policy set has problems:\ntypo\.yaml#0 MutatingAdmissionPolicy\/typo: /);
  });
});
