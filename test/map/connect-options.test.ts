/**
 * The object of a CONNECT request is an options kind (core/v1 PodExecOptions, PodAttachOptions, ...) that
 * kube-apiserver's scheme registers: a MutatingAdmissionPolicy JSON patch's result is decoded strictly into
 * it (mutating/patch/json_patch.go Patch: `GetObjectCreater().New(VersionedKind)`, the strict serializer's
 * Decode, its error an InternalError that aborts the request whatever the failurePolicy), and the next
 * mutation reads the Go object encoded again (omitempty fields dropped). As json_patch_test.go's
 * "jsonPatch invalid CEL initializer field" case for a Deployment, on the CONNECT kinds.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

function policySet(expression: string, resource: string, failurePolicy = 'Ignore') {
  const docs = [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        failurePolicy,
        reinvocationPolicy: 'Never',
        matchConstraints: { resourceRules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: [resource] }] },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression } }],
      },
    },
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p' } },
  ];
  const s = buildPolicySet([parseDocuments('p.json', JSON.stringify(docs))]);
  expect(s.problems).toEqual([]);
  return s;
}

function connect(kind: string, resource: string, subResource: string, object: Record<string, unknown>): AdmissionRequest {
  return {
    uid: 'u-1',
    kind: { group: '', version: 'v1', kind },
    resource: { group: '', version: 'v1', resource },
    subResource,
    name: 'x',
    namespace: 'default',
    operation: 'CONNECT',
    userInfo: { username: 'alice' },
    object: { kind, apiVersion: 'v1', ...object },
    oldObject: null,
  } as AdmissionRequest;
}

const exec = connect('PodExecOptions', 'pods', 'exec', { stdin: true, container: 'app', command: ['sh'] });

describe('JSON patches on the options object of a CONNECT request', () => {
  it('an unknown field fails strict decoding (500, whatever the failurePolicy)', async () => {
    const r = await evaluate(policySet('[JSONPatch{op: "add", path: "/foo", value: "x"}]', 'pods/exec'), exec);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: strict decoding error: unknown field "foo"' });
  });

  it('a value of the wrong type fails decoding into the Go type', async () => {
    const r = await evaluate(policySet('[JSONPatch{op: "add", path: "/command/-", value: 1}]', 'pods/exec'), exec);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({
      code: 500,
      message: 'Internal error occurred: json: cannot unmarshal number into Go struct field PodExecOptions.command of type string',
    });
  });

  it('the result is the Go object encoded again: false omitted, a removed command null', async () => {
    const r = await evaluate(
      policySet('[JSONPatch{op: "replace", path: "/stdin", value: false}, JSONPatch{op: "remove", path: "/command"}, JSONPatch{op: "add", path: "/tty", value: true}]', 'pods/exec'),
      exec,
    );
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.object).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', container: 'app', command: null, tty: true });
  });

  it.each([
    ['PodAttachOptions', 'pods', 'attach', { stdin: true }, '[JSONPatch{op: "add", path: "/command", value: ["sh"]}]', 'strict decoding error: unknown field "command"'],
    ['PodPortForwardOptions', 'pods', 'portforward', { ports: [80] }, '[JSONPatch{op: "add", path: "/ports/-", value: "81"}]', 'json: cannot unmarshal string into Go struct field PodPortForwardOptions.ports of type int32'],
    ['PodProxyOptions', 'pods', 'proxy', { path: '/a' }, '[JSONPatch{op: "add", path: "/port", value: 80}]', 'strict decoding error: unknown field "port"'],
    ['NodeProxyOptions', 'nodes', 'proxy', { path: '/a' }, '[JSONPatch{op: "replace", path: "/path", value: 1}]', 'json: cannot unmarshal number into Go struct field NodeProxyOptions.path of type string'],
    ['ServiceProxyOptions', 'services', 'proxy', { path: '/a' }, '[JSONPatch{op: "add", path: "/Path", value: "/b"}]', 'strict decoding error: unknown field "Path"'],
  ])('%s is decoded strictly too', async (kind, resource, sub, object, expression, message) => {
    const r = await evaluate(policySet(expression, `${resource}/${sub}`), connect(kind, resource, sub, object));
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 500, message: `Internal error occurred: ${message}` });
  });
});
