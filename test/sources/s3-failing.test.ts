/**
 * The S3 source against a store that fails in the ways a real one (or what stands in front of it) does:
 * 500s, a body that does not parse, a 200 whose body is no listing at all (a proxy's sign-in page), no
 * answer, a listing that never ends. Each fails the refresh with a message saying what happened, and the last good set stays in force.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt } from '../node/built.js';
import { startBundle, waitFor } from '../node/bundle.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { s3Source } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';
import { useS3Stub, type StubMode } from './s3-stub.js';

const BUCKET = 'policies';
const stubbed = useS3Stub(BUCKET);

const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];

const FAILURES: [StubMode, RegExp][] = [
  ['error-500', /^s3:\/\/policies\/p: cannot list s3:\/\/policies\/p\/: We encountered an internal error\. \(HTTP 500\)$/],
  ['garbage-xml', /^s3:\/\/policies\/p: cannot list s3:\/\/policies\/p\/: .*XML parse error/],
  ['html', /^s3:\/\/policies\/p: cannot list s3:\/\/policies\/p\/: the store's answer is not an S3 listing/],
  ['hang', /^s3:\/\/policies\/p: cannot list s3:\/\/policies\/p\/: the store did not answer within 2000 ms \(no answer\)$/],
  // Not 'lists more than 1000 documents' after a thousand pages of the same objects.
  ['loop-listing', /^s3:\/\/policies\/p: the listing did not end \(the store gave continuation token "page-2" again after 2 pages\)$/],
];

describe('S3 source, a failing store', () => {
  for (const [mode, message] of FAILURES) {
    it(`keeps the last good set when the store answers ${mode}, and says why`, async () => {
      stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
      const source = s3Source({ uri: `s3://${BUCKET}/p`, client: stubbed().client, bucket: BUCKET, prefix: 'p' });
      const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 4_000 } });
      expect((await r.refresh()).outcome).toBe('applied');
      const good = r.provider().set;
      stubbed().mode = mode;
      const result = await r.refresh();
      expect(result.outcome).toBe('failed');
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(message);
      expect(r.provider().set).toBe(good);
      expect(names(r)).toEqual(['a']);
      // A request left hanging is not left open: the refresh's end aborts it.
      await vi.waitFor(() => expect(stubbed().hangingOpen()).toBe(0), { timeout: 5_000 });
      stubbed().mode = 'ok';
      expect((await r.refresh()).outcome).toBe('unchanged');
      expect(r.provider().sourceErrors).toEqual([]);
    });
  }
});

describe('the built server whose store fails at its start', () => {
  beforeAll(() => ensureBuilt());
  for (const refreshSeconds of ['0', '60']) {
    it(`reads a set that never loaded again soon (1 s, 2 s, 4 s...), not after the interval, with AMENDER_REFRESH_SECONDS=${refreshSeconds}`, async () => {
      stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
      stubbed().mode = 'error-500';
      const server = await startBundle(
        {
          AMENDER_POLICY_SOURCES: `s3://${BUCKET}/p`,
          AMENDER_S3_ENDPOINT: stubbed().endpoint,
          AWS_ACCESS_KEY_ID: 'STUB',
          AWS_SECRET_ACCESS_KEY: 'STUB',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          AMENDER_REFRESH_SECONDS: refreshSeconds,
        },
        { until: 'loaded' },
      );
      try {
        expect(server.lines).toContainEqual(expect.objectContaining({ msg: 'policy sets loaded', ready: [], notReady: ['default'] }));
        expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
        // The store is back: the set loads within the backoff (1 s, then 2 s...), well before any interval.
        stubbed().mode = 'ok';
        await waitFor('the set loaded', async () => (await fetch(`${server.url}/readyz`)).status === 200, 8_000);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    });
  }
});

describe('the built server stopped while a refresh waits for the store', () => {
  beforeAll(() => ensureBuilt());
  it('exits at once, 0, and logs the refresh it abandoned as stopped, not as sources that cannot be read (no error line)', async () => {
    stubbed().objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const server = await startBundle({
      AMENDER_POLICY_SOURCES: `s3://${BUCKET}/p`,
      AMENDER_S3_ENDPOINT: stubbed().endpoint,
      AWS_ACCESS_KEY_ID: 'STUB',
      AWS_SECRET_ACCESS_KEY: 'STUB',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AMENDER_REFRESH_SECONDS: '0',
    });
    stubbed().mode = 'hang';
    const before = stubbed().requests.length;
    server.child.kill('SIGHUP');
    await waitFor('the refresh waiting for the store', () => stubbed().requests.length > before);
    const started = performance.now();
    expect(await server.stop()).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(server.lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'policy refresh stopped', policySet: 'default' }));
  });
});
