/**
 * A param document of a built-in kind that kube-apiserver would refuse to create cannot exist in a cluster,
 * so no param informer (generic/policy_source.go) can hand it to a policy. Such a document is a
 * configuration problem of the policy set, reported per object (in the API server's words) and left out,
 * while the other objects load: a strict decode failure ('<Kind> in version "v1" cannot be handled as a
 * <Kind>: ...', apiserver endpoints/handlers/create.go transformDecodeError) or ConfigMap / Secret
 * validation (kubernetes pkg/apis/core/validation ValidateConfigMap, ValidateSecret; apimachinery
 * util/validation IsConfigMapKey).
 */
import { describe, expect, it } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { annotatingPolicy, configMapReview } from './configmap-reviews.js';

/** A policy on CREATE of ConfigMaps copying `params.data.a` of the `paramKind` object `good` to an annotation. */
const POLICY = (paramKind: string) => annotatingPolicy({ annotations: '{"a": string(params.data.a)}', paramKind, paramName: 'good' });

const REVIEW = configMapReview();

function build(paramKind: string, ...params: string[]): PolicySet {
  return buildPolicySet(parseDocuments('p.yaml', [POLICY(paramKind), ...params].join('\n---\n')));
}

/** [name, path, message] of each problem (all must have effect 'ignored'). */
function problems(set: PolicySet): [string | undefined, string, string][] {
  for (const p of set.problems) expect(p.effect).toBe('ignored');
  return set.problems.map((p) => [p.name, p.path, p.message]);
}

async function review(set: PolicySet): Promise<{ allowed: boolean; patch?: string; message?: string }> {
  const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
  const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }));
  const r = ((await res.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } }).response;
  return { allowed: r.allowed, patch: r.patch === undefined ? undefined : decodeBase64Utf8(r.patch), message: r.status?.message };
}

const configMap = (name: string, rest: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: ${name}, namespace: default }\n${rest}`;
const secret = (name: string, rest: string) => `apiVersion: v1\nkind: Secret\nmetadata: { name: ${name}, namespace: default }\n${rest}`;
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('a built-in param the API server would refuse to create', () => {
  it('is left out with its decode error, and the others still serve', async () => {
    const set = build(
      'apiVersion: v1, kind: ConfigMap',
      configMap('good', 'data: { a: x }'),
      configMap('number', 'data: { a: 1 }'),
      configMap('typo', 'date: { a: x }'),
      configMap('labels', 'data: { a: x }').replace('namespace: default }', 'namespace: default, labels: { on: true } }'),
    );
    expect(problems(set)).toEqual([
      ['number', '', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
      ['typo', '', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "date"'],
      ['labels', '', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string'],
    ]);
    expect(set.counts.params).toBe(1);
    const reply = await review(set);
    expect(reply.message).toBeUndefined();
    expect(JSON.parse(reply.patch ?? '[]')).toEqual([{ op: 'add', path: '/metadata/annotations', value: { a: 'x' } }]);
  });

  it('is not found by the binding that names it', async () => {
    const set = build('apiVersion: v1, kind: ConfigMap', configMap('good', 'data: { a: [x] }'));
    expect(problems(set)).toEqual([
      ['good', '', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type string'],
    ]);
    const reply = await review(set);
    expect(reply.allowed).toBe(false);
    expect(reply.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
  });

  it('is a ConfigMap with an invalid key, a key in both maps, or over 1 MiB', () => {
    const set = build(
      'apiVersion: v1, kind: ConfigMap',
      configMap('good', 'data: { a: x, .b: v, c-_.D9: w }'),
      configMap('space', 'data: { "bad key": x, "..": v }\nbinaryData: { "..c": eA== }'),
      configMap('both', 'data: { a: x }\nbinaryData: { a: eA== }'),
      configMap('big', `data: { a: ${'x'.repeat(700_000)} }\nbinaryData: { b: ${'eHh4'.repeat(120_000)} }`),
      configMap('long', `data: { ${'k'.repeat(254)}: x }`),
    );
    expect(problems(set)).toEqual([
      ['space', 'data[bad key]', `Invalid value: "bad key": ${KEY_MSG}`],
      ['space', 'data[..]', `Invalid value: "..": must not be '..'`],
      ['space', 'binaryData[..c]', `Invalid value: "..c": must not start with '..'`],
      ['both', 'data[a]', 'Invalid value: "a": duplicate of key present in binaryData'],
      // 700,000 + 360,000 bytes (binaryData counts decoded).
      ['big', '', 'Too long: may not be more than 1048576 bytes'],
      ['long', `data[${'k'.repeat(254)}]`, `Invalid value: "${'k'.repeat(254)}": must be no more than 253 characters`],
    ]);
    expect(set.counts.params).toBe(1);
  });

  it('is a Secret with an invalid key (stringData too), over 1 MiB, or without the keys its type needs', () => {
    const set = build(
      'apiVersion: v1, kind: Secret',
      secret('good', 'type: kubernetes.io/tls\ndata: { tls.crt: eA==, tls.key: eA== }'),
      secret('key', 'stringData: { "a/b": x }'),
      secret('big', `stringData: { a: ${'x'.repeat(1_048_577)} }`),
      secret('tls', 'type: kubernetes.io/tls\nstringData: { tls.crt: x }'),
      secret('token', 'type: kubernetes.io/service-account-token'),
      secret('basic', 'type: kubernetes.io/basic-auth\ndata: { other: eA== }'),
      secret('ssh', 'type: kubernetes.io/ssh-auth\nstringData: { ssh-privatekey: "" }'),
      secret('docker', 'type: kubernetes.io/dockerconfigjson'),
    );
    expect(problems(set)).toEqual([
      ['key', 'data[a/b]', `Invalid value: "a/b": ${KEY_MSG}`],
      ['big', 'data', 'Too long: may not be more than 1048576 bytes'],
      ['tls', 'data[tls.key]', 'Required value'],
      ['token', 'metadata.annotations[kubernetes.io/service-account.name]', 'Required value'],
      ['basic', 'data[%s][username]', 'Required value'],
      ['basic', 'data[%s][password]', 'Required value'],
      ['ssh', 'data[%s][ssh-privatekey]', 'Required value'],
      ['docker', 'data[.dockerconfigjson]', 'Required value'],
    ]);
    expect(set.counts.params).toBe(1);
  });

  it('has metadata no object of its kind may have: name, namespace, labels, annotations', () => {
    const set = build(
      'apiVersion: v1, kind: ConfigMap',
      configMap('good', 'data: { a: x }').replace('namespace: default }', 'namespace: default, labels: { a: "" }, annotations: { Example.com/Key: "any text" } }'),
      configMap('Param_1', 'data: { a: x }'),
      configMap('ns', 'data: { a: x }').replace('namespace: default', 'namespace: Shop'),
      configMap('label', 'data: { a: x }').replace('namespace: default }', 'namespace: default, labels: { "a b": "c d" } }'),
      configMap('annotation', 'data: { a: x }').replace('namespace: default }', `namespace: default, annotations: { "x/y/z": "", big: ${'x'.repeat(262_142)} } }`),
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop.example }',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: d, namespace: default, labels: { app: -x } }',
    );
    expect(problems(set)).toEqual([
      ['Param_1', 'metadata.name', expect.stringMatching(/^Invalid value: "Param_1": a lowercase RFC 1123 subdomain must consist of/)],
      ['ns', 'metadata.namespace', expect.stringMatching(/^Invalid value: "Shop": a lowercase RFC 1123 label must consist of/)],
      ['label', 'metadata.labels', expect.stringMatching(/^Invalid value: "a b": name part must consist of alphanumeric characters/)],
      ['label', 'metadata.labels', `Invalid value: "c d": ${LABEL_VALUE_MSG}`],
      ['annotation', 'metadata.annotations', expect.stringMatching(/^Invalid value: "x\/y\/z": a valid label key must consist of/)],
      ['annotation', 'metadata.annotations', 'Too long: may not be more than 262144 bytes'],
      ['shop.example', 'metadata.name', 'Invalid value: "shop.example": must not contain dots'],
      ['d', 'metadata.labels', `Invalid value: "-x": ${LABEL_VALUE_MSG}`],
    ]);
    expect(set.counts.params).toBe(1);
  });
});
