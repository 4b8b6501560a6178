/**
 * Issue 9, item 1: the review deadline and the value bound are settings (Node: variable or config file;
 * Lambda/Workers: variables), they reach the engine through the app's limits, and `amender
 * webhook-config` ties the webhook's timeoutSeconds to the deadline.
 */
import { describe, expect, it } from 'vitest';
import { readNodeConfig } from '../../src/adapters/node-config.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { runCli } from '../../src/cli/main.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, DEFAULT_LIMITS, fixedPolicySet } from '../../src/server/index.js';
import { checkReviewDeadline, maxReviewDeadlineMs } from '../../src/webhook-config/index.js';
import { fakeIO } from '../cli/fake-io.js';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{annotations: {"big": "x".replace("x", "0123456789").replace("0", "0123456789").replace("0", "0123456789")}}}'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
`;

describe('settings', () => {
  it('defaults: 8000 ms and 6 MiB, the same for the Node server and the serverless runtimes', () => {
    expect(DEFAULT_LIMITS).toMatchObject({ reviewDeadlineMs: 8000, maxValueBytes: 6 * 1024 * 1024 });
    expect(readNodeConfig({}).limits).toMatchObject({ reviewDeadlineMs: 8000, maxValueBytes: 6291456 });
    expect(readServerlessConfig({}).limits).toMatchObject({ reviewDeadlineMs: 8000, maxValueBytes: 6291456 });
  });

  it('AMENDER_REVIEW_DEADLINE_MS / AMENDER_MAX_VALUE_BYTES, or limits.* in the config file; bad values are refused', () => {
    const env = { AMENDER_REVIEW_DEADLINE_MS: '4000', AMENDER_MAX_VALUE_BYTES: '1048576' };
    expect(readNodeConfig(env).limits).toMatchObject({ reviewDeadlineMs: 4000, maxValueBytes: 1048576 });
    expect(readServerlessConfig(env).limits).toMatchObject({ reviewDeadlineMs: 4000, maxValueBytes: 1048576 });
    expect(readNodeConfig({}, 'limits: {reviewDeadlineMs: 2500, maxValueBytes: 65536}\n').limits).toMatchObject({ reviewDeadlineMs: 2500, maxValueBytes: 65536 });
    expect(() => readNodeConfig({ AMENDER_REVIEW_DEADLINE_MS: 'soon' })).toThrow(/AMENDER_REVIEW_DEADLINE_MS/);
    expect(() => readServerlessConfig({ AMENDER_MAX_VALUE_BYTES: '0' })).toThrow(/AMENDER_MAX_VALUE_BYTES/);
  });

  it('the app applies limits.maxValueBytes to the reviews it answers', async () => {
    const set = buildPolicySet([parseDocuments('p.yaml', POLICY)]);
    expect(set.problems).toEqual([]);
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'alice' },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    const send = async (maxValueBytes: number) => {
      const { app } = createApp({ policies: fixedPolicySet(set, 'test'), limits: { maxValueBytes }, logger: () => {} });
      const res = await app.fetch(new Request('http://x/mutate', { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' } }));
      return ((await res.json()) as any).response;
    };
    // The annotation is 28 characters long.
    expect((await send(1000)).allowed).toBe(true);
    const refused = await send(20);
    expect(refused.allowed).toBe(false);
    expect(refused.status.message).toContain("policy 'label'");
    expect(refused.status.message).toContain('over the limit of 20 per value');
  });
});

describe('webhook timeoutSeconds and the review deadline', () => {
  it('the deadline may be at most 80% of the timeout and must leave 500 ms', () => {
    expect(maxReviewDeadlineMs(10)).toBe(8000);
    expect(maxReviewDeadlineMs(30)).toBe(24000);
    expect(maxReviewDeadlineMs(2)).toBe(1500);
    expect(maxReviewDeadlineMs(1)).toBe(500);
    expect(checkReviewDeadline(10)).toMatchObject({ deadlineMs: 8000, fits: true });
    expect(checkReviewDeadline(5)).toMatchObject({ deadlineMs: 8000, fits: false, maxDeadlineMs: 4000 });
  });

  const files = { 'p.yaml': POLICY };
  const cli = async (...args: string[]) => {
    const io = fakeIO(files);
    const code = await runCli(['webhook-config', '--url', 'https://amender.example.com/mutate', '--policies', 'p.yaml', ...args], io);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };

  it('amender webhook-config: timeoutSeconds 10 by default, with a note that the default deadline fits', async () => {
    const r = await cli();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('timeoutSeconds: 10');
    expect(r.stderr).toContain('note: review deadline 8000 ms fits timeoutSeconds 10');
  });

  it('a shorter timeout: a warning naming the setting; an explicit deadline that does not fit is refused', async () => {
    const short = await cli('--timeout-seconds', '5');
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('timeoutSeconds: 5');
    expect(short.stderr).toContain('set AMENDER_REVIEW_DEADLINE_MS to at most 4000');
    const fits = await cli('--timeout-seconds', '5', '--review-deadline-ms', '4000');
    expect(fits.code).toBe(0);
    const refused = await cli('--timeout-seconds', '5', '--review-deadline-ms', '4500');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('--review-deadline-ms 4500: review deadline 4500 ms does not fit timeoutSeconds 5');
    expect((await cli('--review-deadline-ms', 'soon')).code).toBe(2);
  });
});
