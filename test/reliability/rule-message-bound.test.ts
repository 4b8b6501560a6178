/**
 * Engines' error messages quote values from the review: Kyverno's `Invalid type for: <the value>`, CEL's
 * `no such key: <key>` in a MutatingAdmissionPolicy. A Pod
 * of 40,000 containers given to such a rule under 30 policies made a 118 MB reply (the list in the
 * denial's message, in each cause and in the audit annotation, per policy) answered after 10 s. Each rule
 * or policy message is now kept to MESSAGE_MAX_CHARS (its start and end around a note of what was cut),
 * so the reply stays small; a short message is left whole. Through the HTTP app.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_CHARS } from '../../src/guard/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

function policies(count: number, failurePolicy: 'Fail' | 'Ignore'): string {
  return Array.from(
    { length: count },
    (_, i) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: upper-${i}, annotations: {pod-policies.kyverno.io/autogen-controllers: none}}
spec:
  failurePolicy: ${failurePolicy}
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            x: "{{ to_upper(request.object.spec.containers) }}"
`,
  ).join('---\n');
}

function review(containers: number): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.0' })) },
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, namespace: 'default', operation: 'CREATE', userInfo: { username: 'a' }, object: pod },
  });
}

async function post(count: number, failurePolicy: 'Fail' | 'Ignore', body: string): Promise<{ text: string; reply: any }> {
  const set = buildPolicySet([parseDocuments('policies.yaml', policies(count, failurePolicy))]);
  expect(set.problems).toEqual([]);
  const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
  const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, reply: JSON.parse(text) };
}

describe('rule messages that quote a large value', () => {
  it('are cut to the bound in the denial, its causes and the audit annotation: the reply stays small', async () => {
    const body = review(5_000);
    const denied = await post(10, 'Fail', body);
    expect(denied.reply.response.allowed).toBe(false);
    // Ten policies, each message at most the bound in the message, the causes and the annotation.
    expect(denied.text.length).toBeLessThan(10 * 4 * (MESSAGE_MAX_CHARS + 200));
    // Kyverno's denial: every failed policy's message, joined, as the message and its one cause.
    const message = denied.reply.response.status.message as string;
    expect(denied.reply.response.status.details.causes).toEqual([{ message }]);
    const parts = message.split(/; (?=policy ClusterPolicy\/)/);
    expect(parts.length).toBe(10);
    for (const part of parts) {
      expect(part).toMatch(/^policy ClusterPolicy\/upper-\d: rule r failed: variable substitution failed: failed to resolve to_upper\(request\.object\.spec\.containers\) at /);
      expect(part).toMatch(/… \[\d+ characters cut\] …/);
      // The end of Kyverno's message (what type was expected) is kept.
      expect(part).toMatch(/expected: \[\]jmespath\.JpType\{"string"\}$/);
    }

    const ignored = await post(10, 'Ignore', body);
    expect(ignored.reply.response.allowed).toBe(true);
    const annotation = JSON.parse(ignored.reply.response.auditAnnotations['kyverno-mutate']) as { message: string }[];
    expect(annotation.length).toBe(10);
    for (const entry of annotation) expect(entry.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS + 40);
    expect(ignored.text.length).toBeLessThan(10 * 2 * (MESSAGE_MAX_CHARS + 200));
  });

  it('a short message is kept whole', async () => {
    const { reply } = await post(1, 'Fail', review(2));
    const message = reply.response.status.message as string;
    expect(message).not.toMatch(/characters cut/);
    expect(message).toContain('Invalid type for: [map[image:nginx:1.0 name:c0] map[image:nginx:1.0 name:c1]]');
  });

  it('a MutatingAdmissionPolicy error quoting a 1 MB key is cut too', async () => {
    const docs = Array.from({ length: 5 }, (_, i) => `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: key-${i}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.metadata.labels[object.metadata.annotations.big]}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: key-${i}}
spec: {policyName: key-${i}}
`).join('---\n');
    const set = buildPolicySet([parseDocuments('policies.yaml', docs)]);
    expect(set.problems).toEqual([]);
    const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { a: 'b' }, annotations: { big: 'k'.repeat(1_000_000) } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const body = JSON.parse(review(1));
    body.request.object = pod;
    const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const text = await res.text();
    const reply = JSON.parse(text);
    expect(reply.response.allowed).toBe(false);
    expect(text.length).toBeLessThan(5 * 2 * (MESSAGE_MAX_CHARS + 300));
    for (const cause of reply.response.status.details.causes as { message: string }[]) {
      expect(cause.message).toMatch(/^policy 'key-\d' with binding 'key-\d' denied request: expression '.*' resulted in error: no such key: k+… \[\d+ characters cut\] …k+$/);
    }
  });
});
