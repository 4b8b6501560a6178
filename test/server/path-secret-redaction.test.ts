/**
 * A cluster's path secret in a mis-shaped URL — behind an ingress prefix, under `/cluster/`, after
 * `/mutate/`, in the cluster's place when the name is left out — reaches neither a reply (404, 405) nor
 * any log line; ordinary short paths are still echoed as sent. Through the Hono app's fetch.
 */
import { describe, expect, it } from 'vitest';
import { SecretVerifier, hashSecret } from '../../src/clusters/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, redactPath, type LogRecord } from '../../src/server/index.js';
import { labelPolicy, podReview } from '../sources/helpers.js';

/** `openssl rand -hex 16`: a DNS label, so it passes for a cluster name. */
const HEX32 = '9f86d081884c7d659a2feaa0c55ad015';
/** `openssl rand -hex 32`. */
const HEX64 = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
/** Shorter than `amender hash-secret` advises (it warns), still hidden wherever it is. */
const SHORTISH = 'k3y-7f2a9c41d0e5';
/** base64url, with the characters a name cannot hold. */
const B64 = 'Zm9vYmFyX2Jhel9xdXV4LW5vcmY_aGVsbG8';
const SECRETS = [HEX32, HEX64, SHORTISH, B64];

const LONG_NAME = 'production-eu-west-1';

async function makeApp() {
  const set = buildPolicySet(parseDocuments('p.yaml', labelPolicy('add-label', 'team', 'shop')));
  const verifier = new SecretVerifier(await Promise.all(SECRETS.map(hashSecret)));
  const logs: LogRecord[] = [];
  const served = new Set(['prod-eu', LONG_NAME]);
  const { app } = createApp({
    policies: fixedPolicySet(set, 'test'),
    logger: (r) => logs.push(r),
    clusters: { get: (name) => (served.has(name) ? { verifier, provider: fixedPolicySet(set, 'test') } : undefined) },
  });
  return { app, logs };
}

async function call(amender: Awaited<ReturnType<typeof makeApp>>, method: string, path: string, headers: Record<string, string> = {}) {
  const before = amender.logs.length;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const res = await amender.app.fetch(
    new Request(`https://amender.test${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(hasBody ? { body: JSON.stringify(podReview()) } : {}),
    }),
  );
  const text = await res.text();
  const lines = amender.logs.slice(before);
  return { status: res.status, text, lines, logText: lines.map((l) => JSON.stringify(l)).join('\n') };
}

/** The shapes the probe found leaking, and a few more mistakes of the same kind. */
const SHAPES = (s: string): string[] => [
  `/amender/clusters/prod-eu/${s}/mutate`,
  `/api/v1/clusters/prod-eu/${s}/mutate`,
  `/cluster/prod-eu/${s}/mutate`,
  `/mutate/${s}`,
  `/clusters/${s}/mutate`,
  `/clusters/${s}/readyz`,
  `/clusterss/prod-eu/${s}/mutate`,
  `/prod-eu/${s}/mutate`,
  `/${s}/mutate`,
  `/${s}`,
  `/clusters/${s}`,
  `/clusters/${s}/`,
  `/amender/clusters/${s}/mutate`,
  `/healthz/${s}`,
  `/readyz/${s}`,
  `/metrics/${s}`,
  `/v1/mutate/${s}`,
  `/mutate;${s}`,
  `//${s}//mutate`,
  `/cluster/${LONG_NAME}/${s}/mutate`,
  `/amender/clusters/${LONG_NAME}/${s}/mutate/`,
];

describe('a path secret in a mis-shaped URL', () => {
  for (const secret of SECRETS) {
    for (const path of SHAPES(secret)) {
      it(`is neither echoed nor logged: ${path.replace(secret, '<secret>')} (${secret.length} characters)`, async () => {
        const amender = await makeApp();
        for (const method of ['POST', 'GET', 'PUT']) {
          const { status, text, lines, logText } = await call(amender, method, path);
          expect(status, `${method} ${text}`).toBeGreaterThanOrEqual(400);
          expect(text, `${method} reply`).not.toContain(secret);
          expect(lines.length).toBeGreaterThan(0);
          expect(logText, `${method} log`).not.toContain(secret);
        }
      });
    }
  }

  it('is hidden in its place after `clusters` even when short, behind a prefix too, and after the typo `cluster`', async () => {
    const amender = await makeApp();
    for (const [path, shown] of [
      ['/amender/clusters/prod-eu/s3cr3t/mutate', '/amender/clusters/prod-eu/[redacted]/mutate'],
      ['/cluster/prod-eu/s3cr3t/mutate', '/cluster/prod-eu/[redacted]/mutate'],
      ['/Cluster/prod-eu/s3cr3t/mutate', '/Cluster/prod-eu/[redacted]/mutate'],
      ['/amender/cluster/prod-eu/s3cr3t/mutate', '/amender/cluster/prod-eu/[redacted]/mutate'],
      ['/cluster%2Fprod-eu%2Fs3cr3t/mutate', '/cluster/[redacted]'],
    ]) {
      const { text, logText } = await call(amender, 'POST', path);
      expect(text, path).not.toContain('s3cr3t');
      expect(logText, path).not.toContain('s3cr3t');
      expect(amender.logs.at(-1)!.path, path).toBe(shown);
    }
  });

  it('says which routes exist when the path it shows is redacted', async () => {
    const amender = await makeApp();
    const { status, text } = await call(amender, 'POST', `/amender/clusters/prod-eu/${HEX32}/mutate`);
    expect(status).toBe(404);
    const message = JSON.parse(text).message as string;
    expect(message).toMatch(/^no route for POST \/amender\/clusters\/prod-eu\/\[redacted\]\/mutate/);
    expect(message).toContain('/clusters/{cluster}/{secret}/mutate');
  });

  it('does not echo a long unknown cluster name (it may be a secret), and says why', async () => {
    const amender = await makeApp();
    const { status, text } = await call(amender, 'POST', `/clusters/${HEX32}/mutate`);
    expect(status).toBe(404);
    const message = JSON.parse(text).message as string;
    expect(message).toContain(`${HEX32.length} characters`);
    expect(message).toContain('/clusters/{cluster}/mutate');
  });
});

describe('what stays readable', () => {
  it('echoes a short unknown path, and a short unknown cluster name', async () => {
    const amender = await makeApp();
    const nope = await call(amender, 'POST', '/nope');
    expect(nope.status).toBe(404);
    expect(JSON.parse(nope.text).message).toBe('no route for POST /nope');
    expect(nope.lines[0].path).toBe('/nope');
    const typo = await call(amender, 'POST', '/clusters/prod-us/mutate');
    expect(JSON.parse(typo.text).message).toBe('no cluster named "prod-us" is served here');
    expect(typo.lines[0].path).toBe('/clusters/prod-us/mutate');
  });

  it('shows a served cluster’s name however long, and its route words', async () => {
    const amender = await makeApp();
    const ok = await call(amender, 'POST', `/clusters/${LONG_NAME}/${HEX32}/mutate`);
    expect(ok.status).toBe(200);
    expect(ok.lines.find((l) => l.msg === 'request')!.path).toBe(`/clusters/${LONG_NAME}/[redacted]/mutate`);
    const bearer = await call(amender, 'GET', `/clusters/${LONG_NAME}/readyz`, { authorization: `Bearer ${HEX64}` });
    expect(bearer.status).toBe(200);
    expect(bearer.lines[0].path).toBe(`/clusters/${LONG_NAME}/readyz`);
    const wrongMethod = await call(amender, 'DELETE', `/clusters/${LONG_NAME}/mutate`);
    expect(JSON.parse(wrongMethod.text).message).toBe(`method DELETE is not allowed on /clusters/${LONG_NAME}/mutate; use POST`);
  });
});

describe('redactPath', () => {
  it.each([
    ['/mutate', '/mutate'],
    ['/favicon.ico', '/favicon.ico'],
    ['/.well-known/security.txt', '/.well-known/security.txt'],
    [`/mutate/${HEX32}`, '/mutate/[redacted]'],
    [`/api/v1/clusters/prod-eu/${HEX64}/mutate`, '/api/v1/clusters/prod-eu/[redacted]/mutate'],
    [`/cluster/prod-eu/${HEX32}/mutate`, '/cluster/prod-eu/[redacted]/mutate'],
    [`/clusters/${HEX32}/readyz`, '/clusters/[redacted]/readyz'],
    ['/clusters/prod-eu-west-1a/mutate', '/clusters/prod-eu-west-1a/mutate'],
    [`/clusters/${LONG_NAME}/mutate`, '/clusters/[redacted]/mutate'],
    [`http://amender.test/x/${HEX32}`, 'http://amender.test/x/[redacted]'],
  ])('%s → %s', (path, shown) => {
    expect(redactPath(path)).toBe(shown);
  });

  it('shows the names of served clusters', () => {
    const served = (name: string) => name === LONG_NAME;
    expect(redactPath(`/clusters/${LONG_NAME}/${HEX32}/mutate`, served)).toBe(`/clusters/${LONG_NAME}/[redacted]/mutate`);
    expect(redactPath(`/cluster/${LONG_NAME}/${HEX32}/mutate`, served)).toBe(`/cluster/${LONG_NAME}/[redacted]/mutate`);
  });
});
