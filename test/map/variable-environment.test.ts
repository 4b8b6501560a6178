/**
 * What a MutatingAdmissionPolicy's variables may reference: kube-apiserver compiles them without the
 * patch types (mutating/compilation.go compilePolicy passes the policy's options without HasPatchTypes to
 * CompileAndStoreVariables; only the mutations get HasPatchTypes, which adds `Object`, `JSONPatch` and
 * the `jsonpatch` library in admission/plugin/cel/compile.go). API validation (validateVariable) compiles
 * them the same way, so such a policy is refused, as Amender refuses a policy whose variable does not compile.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { jsonPatch as patch, policy, type Obj } from './helpers.js';

const request = podRequest(
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  { uid: 'u' },
);

function build(p: Obj) {
  const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b-p' }, spec: { policyName: p.metadata.name } };
  return buildPolicySet([parseDocuments('t.json', JSON.stringify([p, binding]))]);
}

function withVariables(p: Obj, variables: { name: string; expression: string }[]): Obj {
  p.spec.variables = variables;
  return p;
}

describe('variables are compiled without the patch types', () => {
  it.each([
    ['jsonpatch.escapeKey', 'jsonpatch.escapeKey("example.com/team")', "undeclared reference to 'jsonpatch'"],
    ['a JSONPatch literal', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]', "undeclared reference to 'JSONPatch'"],
    ['an Object literal', 'Object{metadata: Object.metadata{labels: {"x": "y"}}}', "undeclared reference to 'Object'"],
  ])('%s in a variable does not compile: the policy is refused', async (_what, expression, message) => {
    const set = build(withVariables(policy('p', [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: string(variables.k)}]')]), [{ name: 'k', expression }]));
    const problem = set.problems.find((p) => p.path === 'spec.variables[0].expression');
    expect(problem?.message).toContain(`compilation failed: ERROR: <input>:1:`);
    expect(problem?.message).toContain(message);
    expect(problem?.effect).toBe('ignored');
    const r = await evaluate(set, request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([]);
  });

  it('the same call in the mutation itself compiles and applies, with a variable holding the key', async () => {
    const p = withVariables(policy('p', [patch('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey(variables.k), value: "blue"}]')]), [
      { name: 'k', expression: '"example.com/team"' },
    ]);
    const set = build(p);
    expect(set.problems).toEqual([]);
    const r = await evaluate(set, request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1team', value: 'blue' }]);
  });
});
