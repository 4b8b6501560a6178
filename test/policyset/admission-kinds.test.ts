/**
 * A MutatingAdmissionPolicy whose kind or apiVersion is mistyped, and a kind its API group does not have,
 * are reported and left out (src/policyset/admission-kinds.ts). Read as plain params they removed the
 * policy silently: no problem, `amender validate` ok, and on a running server the last good version of
 * the document was not kept.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import { labelPolicy } from '../sources/helpers.js';

const POLICY = labelPolicy('lab', 'team', 'one');

function built(text: string) {
  return buildPolicySet(parseDocuments('memory://p.yaml', text));
}

describe('documents that look like a MutatingAdmissionPolicy but are not one Amender reads', () => {
  it.each([
    ['a kind one letter short', POLICY.replace('kind: MutatingAdmissionPolicy\n', 'kind: MutatingAdmisionPolicy\n'), 'kind', /unknown admissionregistration\.k8s\.io kind "MutatingAdmisionPolicy" \(did you mean MutatingAdmissionPolicy\?\)/],
    ['a binding kind mistyped', POLICY.replace('kind: MutatingAdmissionPolicyBinding', 'kind: MutatingAdmissionPolicyBindng'), 'kind', /did you mean MutatingAdmissionPolicyBinding\?/],
    ['an apiVersion no API server serves', POLICY.replace('admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\n', 'admissionregistration.k8s.io/v2\nkind: MutatingAdmissionPolicy\n'), 'apiVersion', /Unsupported value: "admissionregistration\.k8s\.io\/v2"/],
    ['the group mistyped', POLICY.replace('admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\n', 'admissionregistration.k8s.oi/v1\nkind: MutatingAdmissionPolicy\n'), 'apiVersion', /a MutatingAdmissionPolicy is of apiVersion .*admissionregistration\.k8s\.io\/v1.*, not admissionregistration\.k8s\.oi\/v1/],
    ['a kind the group does not have', POLICY.replace('kind: MutatingAdmissionPolicy\n', 'kind: AdmissionPolicy\n'), 'kind', /unknown admissionregistration\.k8s\.io kind "AdmissionPolicy": Amender reads MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding/],
  ])('%s: a problem naming the field, and no param', (_, text, path, message) => {
    const set = built(text);
    const problems = set.problems.filter((p) => p.path === path);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(message);
    expect(problems[0].effect).toBe('ignored');
    expect(set.counts.params).toBe(0);
  });

  it('leaves params of every other kind as they were, a ConfigMap and a custom kind alike', () => {
    const set = built(`${POLICY}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: b}\n---\napiVersion: example.com/v1\nkind: Settings\nmetadata: {name: s}\n`);
    expect(set.problems).toEqual([]);
    expect(set.counts).toMatchObject({ mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1, params: 2 });
  });

  it('on a running server, a typo in a policy file keeps the last good version of the policy in force', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'amender-kind-typo-'));
    const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });
    try {
      await writeFile(join(dir, 'a.yaml'), POLICY);
      await r.refresh();
      expect(r.provider().set!.mutatingPolicies.map((p) => p.policy.name)).toEqual(['lab']);
      await writeFile(join(dir, 'a.yaml'), POLICY.replace('kind: MutatingAdmissionPolicy\n', 'kind: MutatingAdmisionPolicy\n'));
      await r.refresh();
      const set = r.provider().set!;
      expect(set.mutatingPolicies.map((p) => p.policy.name)).toEqual(['lab']);
      expect(set.problems.map((p) => p.message)).toEqual([expect.stringMatching(/did you mean MutatingAdmissionPolicy\?.*\(the last good version of this document stays in force\)$/)]);
    } finally {
      r.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
