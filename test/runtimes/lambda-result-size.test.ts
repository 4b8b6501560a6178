/**
 * A reply larger than what Lambda returns (6,291,556 bytes of result JSON) or a load balancer takes from
 * Lambda (1 MB): the built bundle answers 500 with a Status saying so, where Lambda would refuse the result
 * (Function.ResponseSizeTooLarge) and its caller answer a bare 502. A patch that adds a field to each of
 * many list items is far larger than its review: 100,000 items make a 300 KB review and a 7 MB result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RESULT_MAX_BYTES, oversizeResult } from '../../src/adapters/lambda-result-size.js';
import { ensureBuilt, policyFolder, type HttpCase } from './helpers.js';
import { albEvent, functionUrlEvent, restApiEvent, startLambda, type LambdaProcess, type LambdaResult } from './lambda.js';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: mark-items}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [foos]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "replace", path: "/spec/items", value: object.spec.items.map(x, {"a": "b"})}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mark-items}
spec: {policyName: mark-items}
`;

/** A review of a Foo with `n` empty items: its reply patch has an op per item. */
function review(n: number): string {
  const object = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'f', namespace: 'default' }, spec: { items: Array.from({ length: n }, () => ({})) } };
  const request = { uid: 'u-1', kind: { group: 'example.com', version: 'v1', kind: 'Foo' }, resource: { group: 'example.com', version: 'v1', resource: 'foos' }, operation: 'CREATE', namespace: 'default', name: 'f', userInfo: { username: 'u' }, object };
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
}

const post = (n: number): HttpCase => ({ name: 'big reply', method: 'POST', path: '/mutate', body: review(n), headers: { 'content-type': 'application/json' } });
const resultBytes = (r: LambdaResult) => Buffer.byteLength(JSON.stringify(r));

beforeAll(() => ensureBuilt());

describe('Lambda bundle: a reply over what Lambda returns', () => {
  let lambda: LambdaProcess;
  let folder: { dir: string; dispose: () => void };
  beforeAll(async () => {
    folder = policyFolder([{ name: 'mark-items.yaml', text: POLICY }]);
    lambda = await startLambda({ AMENDER_POLICY_SOURCES: `file://${folder.dir}` });
  });
  afterAll(async () => {
    await lambda?.stop();
    folder?.dispose();
  });

  it('answers an ordinary review of the same policy with its patch', async () => {
    const r = await lambda.invoke(functionUrlEvent(post(3), false));
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body!).response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
  });

  it('answers 500 saying why, within the limit, for a Function URL and a REST API', async () => {
    for (const event of [functionUrlEvent(post(100_000), false), restApiEvent(post(100_000), false)]) {
      const r = await lambda.invoke(event, 30_000);
      expect(r.statusCode).toBe(500);
      expect(resultBytes(r)).toBeLessThan(LAMBDA_RESULT_MAX_BYTES);
      expect(JSON.parse(r.body!)).toMatchObject({ kind: 'Status', code: 500, message: expect.stringMatching(/^the reply is \d+ bytes as a Lambda result, over the 6291556 bytes AWS Lambda returns/) });
    }
    expect(lambda.logs.filter((l) => l.msg === 'reply too large')).toHaveLength(2);
  });

  it("holds a load balancer's reply to its 1 MB", async () => {
    const r = await lambda.invoke(albEvent(post(20_000), true, false), 30_000);
    expect(r.statusCode).toBe(500);
    expect(r.multiValueHeaders?.['content-type']).toEqual(['application/json']);
    expect(JSON.parse(r.body!).message).toMatch(/over the 1048576 bytes a load balancer takes from Lambda/);
  });
});

describe('oversizeResult', () => {
  it('counts the result as Lambda does: its JSON in UTF-8, escapes and all', () => {
    const fits = { statusCode: 200, body: 'x'.repeat(1000), isBase64Encoded: false };
    const size = Buffer.byteLength(JSON.stringify(fits));
    expect(oversizeResult(fits, size)).toBeUndefined();
    expect(oversizeResult(fits, size - 1)).toBe(size);
    const escaped = { statusCode: 200, body: '"é\u0001'.repeat(1000), isBase64Encoded: false };
    expect(oversizeResult(escaped, 100)).toBe(Buffer.byteLength(JSON.stringify(escaped)));
  });
});
