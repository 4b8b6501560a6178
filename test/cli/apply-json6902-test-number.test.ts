/**
 * Kyverno's patchesJson6902 `test` compares a number by its JSON text (evanphx/json-patch v5
 * lazyNode.equal), the patch's as written and the resource's as Go writes it: `"value": 1.0` in a JSON
 * patch text never equals `replicas: 1`, so the patch fails (a rule error) where Amender used to apply it.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const policy = (patch: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: t}
spec:
  failurePolicy: Ignore
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Deployment]}}]}
      mutate:
        patchesJson6902: |-
          ${patch}
`;
const DEPLOYMENT = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default}\nspec: {replicas: 1}\n';

async function patchOf(patch: string) {
  const io = fakeIO({ 'p.yaml': policy(patch), 'd.yaml': DEPLOYMENT });
  const code = await runCli(['apply', 'p.yaml', '-r', 'd.yaml', '--patch'], io);
  return { code, patch: JSON.parse(io.stdout), stderr: io.stderr };
}

describe('patchesJson6902 test of a number', () => {
  it('1.0 in a JSON patch text: test failed, nothing applied', async () => {
    const r = await patchOf('[{"op": "test", "path": "/spec/replicas", "value": 1.0}, {"op": "add", "path": "/metadata/labels", "value": {"t": "v"}}]');
    expect(r.patch).toEqual([]);
    expect(r.stderr).toContain('rule r: error (failed to patch resource: testing value /spec/replicas failed: test failed)');
  });

  it('1 in a JSON patch text, or 1.0 in a YAML one (converted to JSON by Go first): applied', async () => {
    const added = [{ op: 'add', path: '/metadata/labels', value: { t: 'v' } }];
    expect((await patchOf('[{"op": "test", "path": "/spec/replicas", "value": 1}, {"op": "add", "path": "/metadata/labels", "value": {"t": "v"}}]')).patch).toEqual(added);
    expect((await patchOf('- {op: test, path: /spec/replicas, value: 1.0}\n          - {op: add, path: /metadata/labels, value: {t: v}}')).patch).toEqual(added);
  });
});
