/**
 * A policy that builds a value nested deeper than a review may be (1000 levels, what the parser accepts)
 * fails on its own, answered by its failurePolicy; the policies after it run on the object as it was
 * before, and the CLI answers as the server does. Before, nothing measured a policy's result: the next
 * policy's walkers recursed into it and overflowed the stack, and that policy was blamed (or, when every
 * walker survived, the reply's diff refused the review and every policy that mutated was blamed).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { heightUpTo } from '../../src/json/index.js';
import { answerReview } from '../../src/server/index.js';
import type { JsonValue } from '../../src/json/index.js';
import { CLI_BIN, ensureBuilt } from '../node/built.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

type Reply = { response: { allowed: boolean; patch?: string; status?: { message?: string }; auditAnnotations?: Record<string, string> } };

/**
 * A MutatingAdmissionPolicy whose JSON patch nests a Widget's `spec.deep` `levels` times with moves (a
 * custom kind: a built-in one's strict decoding would refuse the unknown field first).
 */
const nestingMap = (failurePolicy: 'Ignore' | 'Fail', levels: number) => `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: a-nest}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/spec/deep", value: {}}] +
        lists.range(${levels}).map(i, [JSONPatch{op: "add", path: "/spec/wrap", value: {}},
          JSONPatch{op: "move", from: "/spec/deep", path: "/spec/wrap/inner"},
          JSONPatch{op: "move", from: "/spec/wrap", path: "/spec/deep"}]).flatten()
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: a-nest}
spec: {policyName: a-nest}
`;

/** A Kyverno policy reading an annotation's JSON into the Pod (Ignore). */
const PARSE_JSON = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: a-config}
spec:
  failurePolicy: Ignore
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata:
            annotations:
              copy: "{{ parse_json(request.object.metadata.annotations.obj) }}"
`;

/** A Kyverno foreach whose every element nests spec.nodeSelector once more (Ignore). */
const FOREACH_NEST = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: a-foreach}
spec:
  failurePolicy: Ignore
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        foreach:
          - list: "request.object.metadata.annotations.n | split(@, '')"
            patchesJson6902: |-
              - op: add
                path: /spec/wrap
                value: {}
              - op: move
                from: /spec/nodeSelector
                path: /spec/wrap/inner
              - op: move
                from: /spec/wrap
                path: /spec/nodeSelector
`;

/** An ordinary policy after the others (Fail): it must still apply. */
const label = (kind: string) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: b-label}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [${kind}]}}]}
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              owner: team-a
`;
const LABEL = label('Pod');

const widget = () => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } });

function pod(annotations: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', annotations },
    spec: { nodeSelector: { zone: 'a' }, containers: [{ name: 'c', image: 'nginx' }] },
  };
}

async function answer(policies: string, object: Record<string, unknown>): Promise<Reply> {
  const set = policySetFrom(policies);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const reply = await answerReview(reviewOf(object) as JsonValue, set);
  expect(reply.status).toBe(200);
  return reply.body as unknown as Reply;
}

const patchOf = (reply: Reply) => JSON.parse(Buffer.from(reply.response.patch ?? 'W10=', 'base64').toString('utf8')) as unknown[];
const kyvernoOutcomes = (reply: Reply) => JSON.parse(reply.response.auditAnnotations?.['kyverno-mutate'] ?? '[]') as { policy: string; status: string; message: string }[];

const deepJson = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('a policy that builds too deep a value fails alone', () => {
  it('a MutatingAdmissionPolicy nesting the object 3000 times (Ignore) is dropped; the next policy applies', async () => {
    const reply = await answer(`${nestingMap('Ignore', 3000)}---${label('Widget')}`, widget());
    expect(reply.response.allowed).toBe(true);
    expect(patchOf(reply)).toEqual([{ op: 'add', path: '/metadata/labels', value: { owner: 'team-a' } }]);
    expect(kyvernoOutcomes(reply)).toMatchObject([{ policy: 'ClusterPolicy/b-label', status: 'applied' }]);
  });

  it('with failurePolicy Fail it denies the review, naming that policy and why', async () => {
    const reply = await answer(`${nestingMap('Fail', 3000)}---${label('Widget')}`, widget());
    expect(reply.response.allowed).toBe(false);
    expect(reply.response.status?.message).toContain("policy 'a-nest'");
    expect(reply.response.status?.message).toContain('nests deeper than 1000 levels');
    expect(reply.response.status?.message).not.toContain('b-label');
  });

  it('nesting up to the bound is kept', async () => {
    // The object and its spec are two levels, `{}` one more, and each move one more: 997 reach 1000.
    const allowed = await answer(nestingMap('Fail', 997), widget());
    expect(allowed.response.allowed, allowed.response.status?.message).toBe(true);
    const deep = (patchOf(allowed) as { path: string; value: JsonValue }[]).find((op) => op.path === '/spec/deep');
    expect(heightUpTo(deep?.value, 2000)).toBe(998);
    const denied = await answer(nestingMap('Fail', 998), widget());
    expect(denied.response.status?.message).toContain('nests deeper than 1000 levels');
  });

  it('parse_json of a text nested 1100 levels (Ignore) fails that rule with a clear message; the next policy applies', async () => {
    const reply = await answer(`${PARSE_JSON}---${LABEL}`, pod({ obj: deepJson(1100) }));
    expect(reply.response.allowed).toBe(true);
    expect(patchOf(reply)).toEqual([{ op: 'add', path: '/metadata/labels', value: { owner: 'team-a' } }]);
    const [config, label] = kyvernoOutcomes(reply);
    expect(config).toMatchObject({ policy: 'ClusterPolicy/a-config', status: 'error' });
    expect(config.message).toContain('parse_json');
    expect(config.message).toContain('nests deeper than 1000 levels');
    expect(label).toMatchObject({ policy: 'ClusterPolicy/b-label', status: 'applied' });
  });

  it('parse_json of a text nested 200,000 levels fails the same way, without a stack overflow', async () => {
    const reply = await answer(`${PARSE_JSON}---${LABEL}`, pod({ obj: deepJson(200_000) }));
    expect(reply.response.allowed).toBe(true);
    expect(kyvernoOutcomes(reply)[0].message).toContain('nests deeper than 1000 levels');
    expect(kyvernoOutcomes(reply)[1]).toMatchObject({ policy: 'ClusterPolicy/b-label', status: 'applied' });
  });

  it('a foreach nesting the object once per element (3000, Ignore) fails that rule and says why', async () => {
    const reply = await answer(`${FOREACH_NEST}---${LABEL}`, pod({ n: 'x'.repeat(3000) }));
    expect(reply.response.allowed).toBe(true);
    expect(patchOf(reply)).toEqual([{ op: 'add', path: '/metadata/labels', value: { owner: 'team-a' } }]);
    const [nest, label] = kyvernoOutcomes(reply);
    expect(nest).toMatchObject({ policy: 'ClusterPolicy/a-foreach', status: 'error' });
    expect(nest.message).toMatch(/nest(s|ed) (deeper than 1000 levels|too deeply)/);
    expect(nest.message).not.toContain('unexpected failure');
    expect(label).toMatchObject({ policy: 'ClusterPolicy/b-label', status: 'applied' });
  });
});

describe('the CLI answers as the server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amender-deep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('amender review: the nesting policy is dropped and the label applied', async () => {
    ensureBuilt();
    const policies = `${nestingMap('Ignore', 3000)}---${label('Widget')}`;
    writeFileSync(join(dir, 'policies.yaml'), policies);
    writeFileSync(join(dir, 'review.json'), JSON.stringify(reviewOf(widget())));
    const out = execFileSync(process.execPath, [CLI_BIN, 'review', '--quiet', '--policies', join(dir, 'policies.yaml'), '--input', join(dir, 'review.json')], { encoding: 'utf8' });
    const cli = JSON.parse(out) as Reply;
    expect(cli.response.allowed).toBe(true);
    expect(cli.response).toEqual((await answer(policies, widget())).response);
  });
});
