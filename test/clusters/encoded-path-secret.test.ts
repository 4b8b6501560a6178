/**
 * A path secret reaches neither the log nor a reply, whatever its encoding: the slash after the cluster
 * name percent-encoded (`alpha%2F<secret>`, `%2f`, double-encoded `%252F`), a trailing slash, extra
 * segments, every method. Through the Hono app's fetch, as the servers of every platform call it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretVerifier, hashSecret } from '../../src/clusters/index.js';
import { createApp, fixedPolicySet, redactPath, type AmenderApp, type LogRecord } from '../../src/server/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { labelPolicy, podReview } from '../sources/helpers.js';

const SECRET = 'c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeebeef';
/** A short secret: it has a cluster name's shape, so only its place in the path can keep it out. */
const SHORT = 'c0ffee0123456789';

let amender: AmenderApp;
const logs: LogRecord[] = [];

beforeAll(async () => {
  const set = buildPolicySet(parseDocuments('alpha.yaml', labelPolicy('alpha-label', 'cluster', 'alpha')));
  const verifier = new SecretVerifier([await hashSecret(SECRET), await hashSecret(SHORT)]);
  amender = createApp({
    policies: fixedPolicySet(set, 'test'),
    logger: (r) => logs.push(r),
    clusters: { get: (name) => (name === 'alpha' ? { verifier, provider: fixedPolicySet(set, 'test') } : undefined) },
  });
});

afterAll(() => {
  logs.length = 0;
});

async function call(method: string, path: string): Promise<{ status: number; text: string; log: LogRecord }> {
  const before = logs.length;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const res = await amender.app.fetch(
    new Request(`https://amender.test${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(hasBody ? { body: JSON.stringify(podReview()) } : {}),
    }),
  );
  const text = await res.text();
  const lines = logs.slice(before).filter((l) => l.msg === 'request');
  expect(lines).toHaveLength(1);
  return { status: res.status, text, log: lines[0] };
}

/** The secret in any form a reply or a log could show it: as sent, decoded, or partly. */
function leaks(text: string, secret: string): boolean {
  return text.includes(secret) || text.includes(secret.slice(0, 12)) || text.includes(secret.slice(-12));
}

const SHAPES = (s: string): string[] => [
  `/clusters/alpha%2F${s}/mutate`,
  `/clusters/alpha%2f${s}/mutate`,
  `/clusters/alpha%252F${s}/mutate`,
  `/clusters/alpha%25252F${s}/mutate`,
  `/clusters/alpha%2F${s}%2Fmutate`,
  `/clusters/alpha%2F${s}/mutate/`,
  `/clusters/alpha%2F${s}`,
  `/clusters/alpha%2F${s}/`,
  `/clusters/alpha%2F${s}/x/mutate`,
  `/clusters/alpha%2F${s}/readyz`,
  `/clusters%2Falpha%2F${s}%2Fmutate`,
  `/clusters%2falpha/${s}/mutate`,
  `/%63lusters/alpha/${s}/mutate`,
  `/%2563lusters/alpha/${s}/mutate`,
  `/clusters/%61lpha/${s}/mutate`,
  `/clusters/alpha;${s}/mutate`,
  `/clusters/alpha%3B${s}/mutate`,
  `/clusters/alpha%00${s}/mutate`,
  `/clusters/alpha%zz${s}/mutate`,
  `/clusters/alpha/${s}/mutate/`,
  `/clusters/alpha/${s}%2Fmutate`,
  `/clusters/alpha/${s}/mutate/extra`,
  `/clusters/alpha/${s}/x/mutate`,
  `/clusters/alpha/${s}/`,
  `/clusters/alpha/${s}`,
  `/clusters/alpha/x/${s}`,
  `/clusters/alpha/${encodeURIComponent(encodeURIComponent(s))}/mutate`,
  `/clusters%zz/alpha/${s}/mutate`,
];

describe('path secrets in any encoding', () => {
  for (const secret of [SECRET, SHORT]) {
    for (const path of SHAPES(secret)) {
      it(`never echoes nor logs the secret: ${path.replace(secret, '<secret>')}`, async () => {
        for (const method of ['POST', 'GET', 'PUT', 'DELETE']) {
          const { status, text, log } = await call(method, path);
          expect(leaks(text, secret), `${method} reply ${status}: ${text}`).toBe(false);
          expect(leaks(JSON.stringify(log), secret), `${method} log: ${JSON.stringify(log)}`).toBe(false);
          expect(String(log.path)).toMatch(/\[redacted\]/);
        }
      });
    }
  }

  it('answers alpha%2F<secret> 404 without naming a cluster, and logs the cluster segment redacted', async () => {
    const { status, text, log } = await call('POST', `/clusters/alpha%2F${SECRET}/mutate`);
    expect(status).toBe(404);
    expect(JSON.parse(text).message).toBe(
      'no cluster is served under that path: its cluster segment is not a cluster name (a lowercase DNS label)',
    );
    expect(log.path).toBe('/clusters/[redacted]/mutate');
    const get = await call('GET', `/clusters/alpha%2F${SECRET}/mutate`);
    expect(get.status).toBe(405);
    expect(JSON.parse(get.text).message).toBe('method GET is not allowed on /clusters/[redacted]/mutate; use POST');
  });

  it('still names an unknown cluster of a name’s shape, and serves the right path', async () => {
    const unknown = await call('POST', `/clusters/gamma/${SECRET}/mutate`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).message).toBe('no cluster named "gamma" is served here');
    expect(unknown.log.path).toBe('/clusters/gamma/[redacted]/mutate');
    const ok = await call('POST', `/clusters/alpha/${SECRET}/mutate`);
    expect(ok.status).toBe(200);
    expect(ok.log.path).toBe('/clusters/alpha/[redacted]/mutate');
  });
});

describe('redactPath on encoded paths', () => {
  const S = 'c0ffeec0ffeec0ffee';
  it.each([
    [`/clusters/alpha%2F${S}/mutate`, '/clusters/[redacted]/mutate'],
    [`/clusters/alpha%2f${S}/mutate`, '/clusters/[redacted]/mutate'],
    [`/clusters/alpha%252F${S}/mutate`, '/clusters/[redacted]/mutate'],
    [`/clusters/alpha%2F${S}`, '/clusters/[redacted]'],
    [`/clusters/alpha%2F${S}/`, '/clusters/[redacted]/[redacted]'],
    [`/clusters/alpha%2F${S}/mutate/`, '/clusters/[redacted]/[redacted]'],
    [`/clusters/alpha%2F${S}/x/mutate`, '/clusters/[redacted]/[redacted]/mutate'],
    [`/clusters%2Falpha%2F${S}%2Fmutate`, '/clusters/[redacted]'],
    [`/%63lusters/alpha/${S}/mutate`, '/%63lusters/alpha/[redacted]/mutate'],
    [`/%2563lusters/alpha/${S}/mutate`, '/%2563lusters/alpha/[redacted]/mutate'],
    [`/clusters/%61lpha/${S}/mutate`, '/clusters/alpha/[redacted]/mutate'],
    [`/clusters/alpha%zz${S}/mutate`, '/clusters/[redacted]/mutate'],
    [`/clusters/${'a'.repeat(64)}/mutate`, '/clusters/[redacted]/mutate'],
    ['/clusters/alpha/mutate', '/clusters/alpha/mutate'],
    ['/clusters/Alpha/readyz', '/clusters/Alpha/readyz'],
    ['/clusters/alpha', '/clusters/alpha'],
    ['/clusters', '/clusters'],
    ['/clusters/', '/clusters/'],
    [`http://amender.test/clusters/alpha/${S}\\/mutate`, 'http://amender.test/clusters/alpha/[redacted]/mutate'],
    [`https://h:8443/clusters/alpha%2F${S}/mutate`, 'https://h:8443/clusters/[redacted]/mutate'],
    [`/clusters%zz/alpha/${S}/mutate`, '/[redacted]'],
    [`/clusters;x/alpha/${S}/mutate`, '/[redacted]'],
    // Outside a cluster route, a segment long enough to be a secret (src/server/redact.ts).
    [`/healthz/${S}`, '/healthz/[redacted]'],
    [`/other%2F${S}`, '/[redacted]'],
    ['/healthz/x', '/healthz/x'],
  ])('%s → %s', (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});
