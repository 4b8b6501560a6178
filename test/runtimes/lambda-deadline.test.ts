/**
 * A review's deadline ends before the Lambda invocation does. Lambda ends an invocation at the function's
 * timeout and its caller answers a bare error, leaving each policy's failurePolicy unapplied (and the
 * environment reset): the built handler shortens the review deadline (AMENDER_REVIEW_DEADLINE_MS) to the
 * time the invocation has left (its context's getRemainingTimeInMillis, less half a second), so a slow
 * review is answered by its policies' failurePolicy. No timed assertion: the deadline a reply names is
 * the one the review was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, httpCases, policyFolder } from './helpers.js';
import { functionUrlEvent, startLambda, type LambdaProcess } from './lambda.js';

/** Some milliseconds of CEL per variable, inside the per-call cost limit; 2,000 of them take seconds. */
const HEAVY = 'lists.range(300).map(x, lists.range(300).filter(y, y % 7 == x % 7).size()).size()';

function heavyPolicy(failurePolicy: 'Fail' | 'Ignore'): string {
  const variables = Array.from({ length: 20 }, (_, i) => `  - name: v${i}\n    expression: ${JSON.stringify(`${HEAVY} + ${i}`)}\n`).join('');
  const sum = Array.from({ length: 20 }, (_, i) => `variables.v${i}`).join(' + ');
  const bindings = Array.from({ length: 100 }, (_, i) => `---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: heavy-${i}}\nspec: {policyName: heavy}\n`).join('');
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: heavy}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  variables:
${variables}  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: ${JSON.stringify(`Object{metadata: Object.metadata{labels: {"heavy": string(${sum})}}}`)}
${bindings}`;
}

const [review] = httpCases();
const event = () => functionUrlEvent(review, false);
type Reply = { response: { allowed: boolean; patch?: string; status?: { details?: { causes?: { message: string }[] } } } };
/** The deadline a denial's causes name (the first binding may stop at its cost limit instead). */
const deadlineOf = (reply: Reply) => Number(/took longer than (\d+) ms/.exec(JSON.stringify(reply.response.status?.details?.causes ?? []))?.[1]);

beforeAll(() => ensureBuilt());

describe.each(['Fail', 'Ignore'] as const)('Lambda bundle: a slow review in a short invocation (failurePolicy %s)', (failurePolicy) => {
  let lambda: LambdaProcess;
  let folder: { dir: string; dispose: () => void };
  beforeAll(async () => {
    folder = policyFolder([{ name: 'heavy.yaml', text: heavyPolicy(failurePolicy) }]);
    lambda = await startLambda({ AMENDER_POLICY_SOURCES: `file://${folder.dir}`, AMENDER_REVIEW_DEADLINE_MS: '4000' });
  });
  afterAll(async () => {
    await lambda?.stop();
    folder?.dispose();
  });

  it('is stopped by a deadline inside the invocation, and answered by its failurePolicy', async () => {
    const result = await lambda.invoke(event(), 1500);
    expect(result.statusCode).toBe(200);
    const reply = JSON.parse(result.body!) as Reply;
    expect(reply.response.patch).toBeUndefined();
    if (failurePolicy === 'Fail') {
      expect(reply.response.allowed).toBe(false);
      expect(deadlineOf(reply)).toBeGreaterThan(0);
      expect(deadlineOf(reply)).toBeLessThanOrEqual(1000); // 1500 ms left, less the half second kept free
    } else {
      expect(reply.response.allowed).toBe(true);
      expect(lambda.logs.find((l) => l.msg === 'policy stopped')).toMatchObject({ policy: 'heavy', outcome: 'deadline', failurePolicy: 'Ignore' });
    }
  });
});

describe('Lambda bundle: a review deadline shorter than the invocation', () => {
  let lambda: LambdaProcess;
  let folder: { dir: string; dispose: () => void };
  beforeAll(async () => {
    folder = policyFolder([{ name: 'heavy.yaml', text: heavyPolicy('Fail') }]);
    lambda = await startLambda({ AMENDER_POLICY_SOURCES: `file://${folder.dir}`, AMENDER_REVIEW_DEADLINE_MS: '300' });
  });
  afterAll(async () => {
    await lambda?.stop();
    folder?.dispose();
  });

  it('is the configured one', async () => {
    const reply = JSON.parse((await lambda.invoke(event(), 60_000)).body!) as Reply;
    expect(reply.response.allowed).toBe(false);
    expect(deadlineOf(reply)).toBe(300);
  });
});
