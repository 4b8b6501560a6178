/**
 * A MutatingPolicy's JSON patch result is decoded back into an Unstructured, as Kyverno does
 * (pkg/cel/policies/mpol/compiler/json.go: the JSON serializer's Decode into &unstructured.Unstructured{},
 * an error wrapped as an internal error): a result without a kind, or whose apiVersion/kind do not read as
 * apimachinery's SimpleMetaFactory.Interpret reads them, fails the policy (its failurePolicy decides)
 * instead of reaching the API server as a patch that strips the object.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const policy = (patch: string, failurePolicy = 'Fail') => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: decode}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/data/seen", value: "yes"}]'}
  - patchType: JSONPatch
    jsonPatch:
      expression: '${patch}'
`;

const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x}\ndata: {k: v}\n';

async function apply(patch: string, failurePolicy?: string) {
  const io = fakeIO({ 'p.yaml': policy(patch, failurePolicy), 'cm.yaml': CONFIGMAP });
  const code = await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io);
  return { code, out: io.stdout + io.stderr, stdout: io.stdout };
}

describe("a MutatingPolicy's JSON patch result decodes back into an Unstructured", () => {
  it.each([
    ['the whole object replaced by one without a kind', '[JSONPatch{op: "replace", path: "", value: {"a": "<b>"}}]', `Internal error occurred: Object 'Kind' is missing in '{"a":"\\u003cb\\u003e"}'`],
    ['an empty kind', '[JSONPatch{op: "replace", path: "/kind", value: ""}]', `Internal error occurred: Object 'Kind' is missing in '{"apiVersion":"v1","data":{"k":"v","seen":"yes"},"kind":"","metadata":{"name":"cm","namespace":"x"}}'`],
    ['a kind that is no string', '[JSONPatch{op: "replace", path: "/kind", value: 5}]', 'Internal error occurred: couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string'],
    ['an apiVersion with two slashes', '[JSONPatch{op: "replace", path: "/apiVersion", value: "a/b/c"}]', 'Internal error occurred: unexpected GroupVersion string: a/b/c'],
    ['a list for the object', '[JSONPatch{op: "replace", path: "", value: [1]}]', "Internal error occurred: couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct {"],
  ])('%s fails the policy', async (_, patch, message) => {
    const r = await apply(patch);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`policy "decode" denied request: ${message}`);
  });

  it('keeps none of the policy\'s changes under failurePolicy Ignore, and decodes a result without apiVersion (Kyverno requires only the kind)', async () => {
    const ignored = await apply('[JSONPatch{op: "remove", path: "/kind"}]', 'Ignore');
    // The resource comes out unchanged; amender apply exits 1 on the error result, as kyverno apply does.
    expect(ignored.code).toBe(1);
    expect(parseYaml(ignored.stdout)).toEqual(parseYaml(CONFIGMAP));
    const noVersion = await apply('[JSONPatch{op: "remove", path: "/apiVersion"}]');
    expect(noVersion.code).toBe(0);
    expect(parseYaml(noVersion.stdout)).toEqual({ kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'x' }, data: { k: 'v', seen: 'yes' } });
  });
});
