/**
 * /readyz lists at most READYZ_MAX_PROBLEMS problems: the kubelet probes every few seconds, and a source
 * of thousands of broken documents made each answer megabytes. `counts.problems` stays exact, and the
 * answer says how many problems there are and how many it leaves out; the cluster /readyz the same. A
 * problem's message that quotes a long value is cut in its middle.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { READYZ_MAX_PROBLEM_MESSAGE, READYZ_MAX_PROBLEMS } from '../../src/server/routes/probes.js';

/** `n` MutatingAdmissionPolicies that do not validate: one problem or more each. */
function brokenSet(n: number): PolicySet {
  const text = Array.from({ length: n }, (_, i) => `apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p${i}}\nspec: {mutations: 3}\n`).join('---\n');
  return buildPolicySet([parseDocuments('memory://broken.yaml', text)]);
}

interface Ready {
  counts: { problems: number };
  problems: { name?: string }[];
  problemCount?: number;
  problemsOmitted?: number;
}

const clusterLookup = (set: PolicySet) => ({
  get: (name: string) => (name === 'east' ? { verifier: { verify: async (s: string | undefined) => s === 'key' }, provider: fixedPolicySet(set, 'memory://') } : undefined),
});

describe('/readyz problems are bounded', () => {
  it('lists the first problems, with the count of all and of those left out', async () => {
    const set = brokenSet(2000);
    const total = set.problems.length;
    expect(total).toBeGreaterThan(READYZ_MAX_PROBLEMS);
    const { app } = createApp({ policies: fixedPolicySet(set, 'memory://'), clusters: clusterLookup(set) });
    for (const [path, headers] of [['/readyz', {}], ['/clusters/east/readyz', { authorization: 'Bearer key' }]] as const) {
      const res = await app.fetch(new Request(`https://amender.test${path}`, { headers }));
      expect(res.status).toBe(200);
      const text = await res.text();
      const body = JSON.parse(text) as Ready;
      expect(body.counts.problems).toBe(total);
      expect(body.problems.length).toBe(READYZ_MAX_PROBLEMS);
      expect(body.problems.map((p) => p.name)).toEqual(set.problems.slice(0, READYZ_MAX_PROBLEMS).map((p) => p.name));
      expect(body.problemCount).toBe(total);
      expect(body.problemsOmitted).toBe(total - READYZ_MAX_PROBLEMS);
      // A few hundred bytes per problem shown, not per problem of the set.
      expect(text.length).toBeLessThan(READYZ_MAX_PROBLEMS * 1000);
    }
  });

  it('lists every problem, with no count added, when they are few', async () => {
    const set = brokenSet(3);
    const { app } = createApp({ policies: fixedPolicySet(set, 'memory://') });
    const body = (await (await app.fetch(new Request('https://amender.test/readyz'))).json()) as Ready;
    expect(body.problems.length).toBe(set.problems.length);
    expect(body.counts.problems).toBe(set.problems.length);
    expect(body).not.toHaveProperty('problemsOmitted');
    expect(body).not.toHaveProperty('problemCount');
  });

  it('cuts a message quoting a long value in its middle, keeping its cause', async () => {
    // A CEL expression of 200 KB: the field error quotes it whole before saying why it is refused.
    const expression = Array.from({ length: 20000 }, (_, i) => `"k${i}"`).join(' + ');
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: long}
spec:
  reinvocationPolicy: Never
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations: [{patchType: JSONPatch, jsonPatch: {expression: '${expression}'}}]
`;
    const set = buildPolicySet([parseDocuments('memory://long.yaml', policy)]);
    const whole = set.problems[0].message;
    expect(whole.length).toBeGreaterThan(expression.length);
    const { app } = createApp({ policies: fixedPolicySet(set, 'memory://') });
    const text = await (await app.fetch(new Request('https://amender.test/readyz'))).text();
    const shown = (JSON.parse(text) as Ready & { problems: { message: string }[] }).problems[0].message;
    expect(shown.length).toBeLessThan(READYZ_MAX_PROBLEM_MESSAGE + 100);
    expect(shown).toContain(`…[truncated: ${whole.length} characters]…`);
    expect(whole.startsWith(shown.slice(0, 500))).toBe(true);
    expect(whole.endsWith(shown.slice(-500))).toBe(true);
    expect(shown).toMatch(/compilation failed: .*exceeds limit/);
    expect(text.length).toBeLessThan(10_000);
  });
});
