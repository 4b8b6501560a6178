/**
 * A JSON patch that removes or changes a built-in object's apiVersion or kind. kube-apiserver decodes the
 * patched JSON into the matched kind's Go type (mutating/patch/json_patch.go; apimachinery's JSON
 * serializer Decode): missing apiVersion/kind are filled from that type (gvkWithDefaults) and written back
 * by dispatchOne's ConvertToVersion; a kind the scheme does not know is runtime.UseOrCreateObject's
 * NotRegistered error, answered as an InternalError (500) whatever the failurePolicy.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { jsonPatch as patch, policy, set } from './helpers.js';

const request = podRequest(
  parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } })) as any,
  { uid: 'u' },
);

describe('apiVersion and kind of a JSON-patched built-in object', () => {
  it.each([
    ['removed kind', '[JSONPatch{op: "remove", path: "/kind"}]'],
    ['removed apiVersion', '[JSONPatch{op: "remove", path: "/apiVersion"}]'],
    ['both emptied', '[JSONPatch{op: "replace", path: "/kind", value: ""}, JSONPatch{op: "replace", path: "/apiVersion", value: ""}]'],
  ])('%s: filled from the type again, as the next mutation sees it', async (_what, expression) => {
    const r = await evaluate(
      set(policy('p', [patch(expression), patch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"kind": object.kind, "version": object.apiVersion}}]')])),
      request,
    );
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { kind: 'Pod', version: 'v1' } }]);
  });

  it.each([
    ['a kind the scheme does not know', '[JSONPatch{op: "replace", path: "/kind", value: "Other"}]', 'no kind "Other" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'],
    ['a version the scheme does not know', '[JSONPatch{op: "replace", path: "/apiVersion", value: "v2"}]', 'no kind "Pod" is registered for version "v2" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'],
    ['another group', '[JSONPatch{op: "replace", path: "/apiVersion", value: "example.com/v1"}]', 'no kind "Pod" is registered for version "example.com/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'],
    ['an apiVersion with two slashes', '[JSONPatch{op: "replace", path: "/apiVersion", value: "a/b/c"}]', 'unexpected GroupVersion string: a/b/c'],
    // SimpleMetaFactory.Interpret reads apiVersion/kind with encoding/json before anything else: a value of
    // another type is its error, keys match case-insensitively (in the patched JSON's sorted key order,
    // the last one wins; the first type error is returned).
    ['a kind that is not a string', '[JSONPatch{op: "replace", path: "/kind", value: 5}]', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"],
    ['an apiVersion that is an object', '[JSONPatch{op: "replace", path: "/apiVersion", value: {"a": 1}}]', "couldn't get version/kind; json parse error: json: cannot unmarshal object into Go struct field .apiVersion of type string"],
    ['a case variant of kind that is not a string', '[JSONPatch{op: "add", path: "/Kind", value: true}]', "couldn't get version/kind; json parse error: json: cannot unmarshal bool into Go struct field .kind of type string"],
    ['a list for the object', '[JSONPatch{op: "replace", path: "", value: [1]}]', `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`],
    ['a case variant standing for a missing kind', '[JSONPatch{op: "remove", path: "/kind"}, JSONPatch{op: "add", path: "/KIND", value: "Other"}]', 'no kind "Other" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'],
  ])('%s: an internal error whatever the failurePolicy', async (_what, expression, message) => {
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const r = await evaluate(set(policy('p', [patch(expression)], failurePolicy)), request);
      expect(r.allowed).toBe(false);
      if (!r.allowed) expect(r.status).toMatchObject({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}` });
    }
  });
});

/**
 * A custom resource's JSON-patched object is decoded back into an Unstructured (json_patch.go: the JSON
 * serializer's Decode into &unstructured.Unstructured{}): Interpret reads apiVersion/kind first, and the
 * Unstructured needs its kind; either failure is an InternalError that aborts the request. Another kind
 * or a missing apiVersion decode.
 */
describe('apiVersion and kind of a JSON-patched custom resource', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: 'Widget', plural: 'widgets' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } };
  const widgetRequest = podRequest(parseJson(JSON.stringify(widget)) as any, {
    uid: 'u',
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
  });
  function widgetSet(expression: string, failurePolicy: string) {
    const p = policy('p', [patch(expression)], failurePolicy);
    p.spec.matchConstraints.resourceRules = [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }];
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b-p' }, spec: { policyName: 'p' } };
    const s = buildPolicySet([parseDocuments('t.json', JSON.stringify([crd, p, binding]))]);
    expect(s.problems).toEqual([]);
    return s;
  }

  it.each([
    ['a removed kind', '[JSONPatch{op: "remove", path: "/kind"}]', `Object 'Kind' is missing in '{"apiVersion":"example.com/v1","metadata":{"name":"w","namespace":"default"},"spec":{"size":1}}'`],
    ['a kind that is not a string', '[JSONPatch{op: "replace", path: "/kind", value: 5}]', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"],
    ['an apiVersion with two slashes', '[JSONPatch{op: "replace", path: "/apiVersion", value: "a/b/c"}]', 'unexpected GroupVersion string: a/b/c'],
  ])('%s: an internal error whatever the failurePolicy', async (_what, expression, message) => {
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const r = await evaluate(widgetSet(expression, failurePolicy), widgetRequest);
      expect(r.allowed).toBe(false);
      if (!r.allowed) expect(r.status).toMatchObject({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}` });
    }
  });

  it.each([
    ['another kind', '[JSONPatch{op: "replace", path: "/kind", value: "Other"}]', [{ op: 'replace', path: '/kind', value: 'Other' }]],
    ['a removed apiVersion', '[JSONPatch{op: "remove", path: "/apiVersion"}]', [{ op: 'remove', path: '/apiVersion' }]],
  ])('%s: decodes', async (_what, expression, expected) => {
    const r = await evaluate(widgetSet(expression, 'Fail'), widgetRequest);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual(expected);
  });
});
