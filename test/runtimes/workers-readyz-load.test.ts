/**
 * A Worker has no start at which to load its policy sets: a set loads when a request needs it. A review
 * waited for its set's first load; a readiness request did not, and only started the load in the
 * background, so the first /readyz (or /clusters/{cluster}/readyz) of every fresh isolate answered 503
 * "no policy set is loaded yet", with no source error, however healthy the store: an uptime check or a
 * deploy gate on /readyz saw Workers that were not ready. The readiness routes now wait for the set they
 * report on, as a review does (within the same first-load wait). The built Workers bundle in workerd
 * through miniflare, with policies in an R2 bucket; a fresh isolate per test.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { labelPolicy } from '../sources/helpers.js';
import { ensureBuilt } from './helpers.js';
import { startWorker } from './workers.js';

const SECRET = 'readyz-test-secret-0123456789abcdef';
const HASH = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;

/** The reply to the first request (to `path`) of a fresh isolate serving a default set and cluster alpha from R2. */
async function firstReply(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { ready?: boolean; counts?: { mutatingAdmissionPolicies: number } } }> {
  const worker = await startWorker(
    {
      AMENDER_POLICY_SOURCES: 'r2://POLICIES/default',
      AMENDER_CLUSTERS: 'alpha',
      AMENDER_CLUSTER_ALPHA_SOURCES: 'r2://POLICIES/alpha',
      AMENDER_CLUSTER_ALPHA_SECRET_HASHES: HASH,
    },
    { 'default/label.yaml': labelPolicy('label', 'team', 'one'), 'alpha/label.yaml': labelPolicy('alpha-label', 'team', 'alpha') },
  );
  try {
    const response = await fetch(`${worker.origin}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as { ready?: boolean } };
  } finally {
    await worker.dispose();
  }
}

describe('a fresh Worker isolate asked for its readiness first', () => {
  beforeAll(() => ensureBuilt());

  it('loads the default set for /readyz and answers ready', async () => {
    const reply = await firstReply('/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body.ready).toBe(true);
    expect(reply.body.counts?.mutatingAdmissionPolicies).toBe(1);
  });

  it("loads a cluster's set for its /readyz and answers ready", async () => {
    const reply = await firstReply('/clusters/alpha/readyz', { authorization: `Bearer ${SECRET}` });
    expect(reply.status).toBe(200);
    expect(reply.body.ready).toBe(true);
  });
});
