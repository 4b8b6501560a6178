/**
 * `amender apply` prints YAML 1.1 so kubectl reads back what it printed. A `<<` map key (a ConfigMap's
 * data key, a CRD field) was printed plain, `<<: value`: the merge key of YAML 1.1, which kubectl's go-yaml
 * (resolve.go: `<<` is yaml_MERGE_TAG) and this CLI read as a merge, failing on a string value ("map
 * merge requires map or sequence of maps") and merging a map value into its parent. It is now quoted.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['ConfigMap', 'Widget']);
const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: shop}
data: {"<<": "shifted", "x": "<<"}
`;
const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
spec: {"<<": {a: "1"}, a: "2"}
`;

async function apply(resource: string, stdin = '') {
  const io = fakeIO({ 'p.yaml': POLICY, 'r.yaml': resource }, stdin);
  const code = await runCli(['apply', '--policies', 'p.yaml', '--resource', stdin ? '-' : 'r.yaml', '--quiet'], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('apply prints a << key so that it reads back as that key', () => {
  it.each([['a string value', CONFIG_MAP, 'data'], ['a map value', WIDGET, 'spec']])('%s', async (_what, resource, field) => {
    const first = await apply(resource);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('"<<":');
    // Read back (as kubectl would read the file): the same object, and nothing left to change.
    const again = await apply(resource, first.stdout);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(first.stdout).toContain(`${field}:\n  "<<":`);
  });
});
