/**
 * A JSON patch value that is (or holds) an `Object{...}` literal reaches JSON as kube-apiserver takes it
 * there (mutating/patch/json_patch.go: dynamic.ObjectVal.ConvertToNative to a structpb.Value): the
 * literal's fields are Go values, and structpb has no form for a timestamp, a duration or a null among
 * them. Outside a literal cel-go writes timestamps and durations as strings.
 */
import { describe, expect, it } from 'vitest';
import { patchText } from '../../src/admission/patch-text.js';
import { evaluate } from '../../src/engine/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig, jsonPatch, policy, set } from './helpers.js';

const request = podRequest(
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  { uid: 'u-1', userInfo: {} },
);

const prefix = "policy 'a' with binding 'b-a' denied request: JSONPath valueExpression evaluated to a type that could not marshal to JSON: proto: invalid type: ";

describe('Object literals in JSON patch values', () => {
  it.each([
    ['a timestamp', "timestamp('2024-01-01T00:00:00Z')", 'time.Time'],
    ['a duration', "duration('90s')", 'time.Duration'],
    ['a null', 'null', 'structpb.NullValue'],
    ['a duration in a list', "[duration('90s')]", 'time.Duration'],
  ])('%s in a field is refused as kube-apiserver refuses it', async (_what, field, goType) => {
    const s = set(policy('a', [jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: Object.x{at: ${field}}}]`)]));
    const r = await evaluate(s, request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 403, reason: 'Invalid', message: prefix + goType });
  });

  it('under failurePolicy Ignore the mutation is dropped and the other policies still apply', async () => {
    const s = set(
      policy('a', [jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: Object.x{at: timestamp('2024-01-01T00:00:00Z')}}]`)], 'Ignore'),
      policy('c', [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"ok": "yes"}}]')]),
    );
    const r = await evaluate(s, request);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    const meta = (r.object as any).metadata;
    expect(meta.annotations).toBeUndefined();
    expect(meta.labels).toEqual({ ok: 'yes' });
  });

  it('outside a literal a timestamp and a duration are written as strings', async () => {
    const s = set(policy('a', [jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {"at": string(timestamp('2024-01-01T00:00:00Z')), "d": string(duration('90s'))}}, JSONPatch{op: "add", path: "/metadata/annotations/t", value: timestamp('2024-01-01T00:00:00Z')}]`)]));
    const r = await evaluate(s, request);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).metadata.annotations).toEqual({ at: '2024-01-01T00:00:00Z', d: '90s', t: '2024-01-01T00:00:00Z' });
  });
});

describe('numbers in JSON patch values', () => {
  it('an integral double is written as kube-apiserver writes it (protojson: 1, not 1.0), so an int field takes it', async () => {
    const s = set(policy('a', [jsonPatch('[JSONPatch{op: "add", path: "/spec/activeDeadlineSeconds", value: 30.0}, JSONPatch{op: "add", path: "/spec/overhead", value: {"cpu": "1"}}]')]));
    const r = await evaluate(s, request);
    expect(r.allowed, JSON.stringify(r)).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).spec.activeDeadlineSeconds).toBe(30);
    // The response patch (what the API server applies) writes it as an integer.
    expect(patchText(r.patch)).toContain('"value":30}');
    expect(patchText(r.patch)).not.toContain('30.0');
  });

  it.each([
    ['0.0 / 0.0', 'NaN'],
    ['1.0 / 0.0', '+Inf'],
    ['-1.0 / 0.0', '-Inf'],
  ])('%s cannot be written: protojson refuses it', async (v, shown) => {
    const s = set(policy('a', [jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {"x": ${v}}}]`)]));
    const r = await evaluate(s, request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status.message).toBe(
      `policy 'a' with binding 'b-a' denied request: JSONPath valueExpression evaluated to a type that could not marshal to JSON: json: error calling MarshalJSON for type *structpb.Value: proto: google.protobuf.Value.number_value: invalid ${shown} value`,
    );
  });
});

/**
 * An ApplyConfiguration is the Go map of its Object literal (dynamic.ObjectVal.Value(), mutating/patch/smd.go):
 * a field's value, a CEL map's values and a list literal's elements are their Go Value(), so a null is a
 * structpb.NullValue, a timestamp a time.Time, a duration a time.Duration and bytes a []byte. None of them is
 * a kind structured-merge-diff knows: converting the configuration to a typed value refuses them, with the
 * value printed by %#v (string fields), %v (maps, booleans, untyped scalars) or %T (numbers).
 */
describe('Go values in an ApplyConfiguration', () => {
  const conversion = "policy 'a' with binding 'b-a' denied request: error applying patch: failed to convert patch object to typed object: ";

  it.each([
    ['a null in a string field', "Object{spec: Object.spec{hostname: null}}", '.spec.hostname: expected string, got &value.valueUnstructured{Value:0}'],
    ['a null as a map', "Object{metadata: Object.metadata{labels: null}}", '.metadata.labels: expected map, got &{NULL_VALUE}'],
    ['a null as a map value', "Object{metadata: Object.metadata{labels: {'a': null}}}", '.metadata.labels.a: expected string, got &value.valueUnstructured{Value:0}'],
    [
      'a null in a nested literal',
      "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', image: null}]}}",
      '.spec.containers[name="app"].image: expected string, got &value.valueUnstructured{Value:0}',
    ],
    ['a null list element', "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', args: [null]}]}}", '.spec.containers[name="app"].args[0]: expected string, got &value.valueUnstructured{Value:0}'],
    ['a null item of a list map', "Object{spec: Object.spec{containers: [null]}}", '.spec.containers: element 0: associative list with keys may not have non-map elements'],
    [
      'a timestamp in a string',
      "Object{metadata: Object.metadata{annotations: {'at': timestamp('2024-01-01T00:00:00.5Z')}}}",
      '.metadata.annotations.at: expected string, got &value.valueUnstructured{Value:time.Date(2024, time.January, 1, 0, 0, 0, 500000000, time.UTC)}',
    ],
    ['a duration in a string', "Object{spec: Object.spec{hostname: duration('90s')}}", '.spec.hostname: expected string, got &value.valueUnstructured{Value:90000000000}'],
    ['a duration in a number', "Object{spec: Object.spec{activeDeadlineSeconds: duration('90s')}}", '.spec.activeDeadlineSeconds: expected numeric (int or float), got time.Duration'],
    ['a duration in a boolean', "Object{spec: Object.spec{hostNetwork: duration('90s')}}", '.spec.hostNetwork: expected boolean, got &{1m30s}'],
    ['a timestamp in a boolean', "Object{spec: Object.spec{hostNetwork: timestamp('2024-01-01T00:00:00Z')}}", '.spec.hostNetwork: expected boolean, got &{2024-01-01 00:00:00 +0000 UTC}'],
    ['bytes in a string', "Object{spec: Object.spec{hostname: b'ab'}}", '.spec.hostname: expected string, got &value.valueUnstructured{Value:[]byte{0x61, 0x62}}'],
  ])('%s is refused as kube-apiserver refuses it', async (_what, expression, message) => {
    const r = await evaluate(set(policy('a', [applyConfig(expression)])), request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 403, reason: 'Invalid', message: conversion + message });
  });

  it('optional.none() in a field is a Go nil: the field is set to null (unset), not an error', async () => {
    const r = await evaluate(set(policy('a', [applyConfig("Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', image: optional.none()}]}}")])), request);
    expect(r.allowed, JSON.stringify(r)).toBe(true);
    if (!r.allowed) return;
    // The null converts to the Go string's zero value, "", which `omitempty` leaves out.
    expect(patchText(r.patch)).toBe('[{"op":"remove","path":"/spec/containers/0/image"}]');
  });

  it('a string made of a timestamp or a duration is written', async () => {
    const r = await evaluate(
      set(policy('a', [applyConfig("Object{metadata: Object.metadata{annotations: {'at': string(timestamp('2024-01-01T00:00:00Z')), 'd': string(duration('90s'))}}}")])),
      request,
    );
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).metadata.annotations).toEqual({ at: '2024-01-01T00:00:00Z', d: '90s' });
  });
});

describe('a CEL map nested in an ApplyConfiguration', () => {
  // A schemaless custom resource: every field is SMD's deduced type (a map, a list or any scalar).
  const widget = podRequest(
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} },
    { uid: 'u-2', userInfo: {}, kind: { group: 'example.com', version: 'v1', kind: 'Widget' }, resource: { group: 'example.com', version: 'v1', resource: 'widgets' } },
  );
  const widgetPolicy = (expression: string) => {
    const p = policy('a', [applyConfig(expression)]);
    p.spec.matchConstraints.resourceRules = [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }];
    return p;
  };

  it("as a map's value is a Go map[ref.Val]ref.Val: no kind SMD knows, refused", async () => {
    const r = await evaluate(set(widgetPolicy("Object{spec: Object.spec{m: {'a': {'y': 'c', 'x': 'd'}}}}")), widget);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status.message).toBe(
      "policy 'a' with binding 'b-a' denied request: error applying patch: failed to convert patch object to typed object: .spec.m.a: expected map, got &{map[x:d y:c]}",
    );
  });

  it('as a string field is printed as Go prints the map', async () => {
    const r = await evaluate(set(policy('a', [applyConfig("Object{metadata: Object.metadata{annotations: {'a': {'b': 'c', 'a': 'd'}}}}")])), request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status.message).toBe(
      "policy 'a' with binding 'b-a' denied request: error applying patch: failed to convert patch object to typed object: .metadata.annotations.a: expected string, got &value.valueUnstructured{Value:map[ref.Val]ref.Val{\"a\":\"d\", \"b\":\"c\"}}",
    );
  });

  it("as a field's value is converted entry by entry", async () => {
    const r = await evaluate(set(widgetPolicy("Object{spec: Object.spec{m: {'a': 'b'}, n: Object.spec.n{o: {'p': 1}}}}")), widget);
    expect(r.allowed, JSON.stringify(r)).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).spec).toEqual({ m: { a: 'b' }, n: { o: { p: 1 } } });
  });
});
