/**
 * A `[]byte` field a mutation writes (Secret `data`, ConfigMap `binaryData`, a CSR's `request`). Go holds
 * bytes and writes them as base64: a JSON patch's result that is not base64 does not decode (encoding/json
 * base64.StdEncoding, 500 whatever the failurePolicy); an ApplyConfiguration's does not convert
 * (runtime/converter.go sliceFromUnstructured: json.Marshal then json.Unmarshal); what decodes is read
 * back by the next mutation, and kept, in canonical form.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig as ac, jsonPatch, policy, set } from './helpers.js';

const onKind = (p: any, group: string, resource: string) => {
  p.spec.matchConstraints = { resourceRules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: [resource] }] };
  return p;
};
const secretPolicy = (mutations: any[], failurePolicy = 'Fail') => onKind(policy('p', mutations, failurePolicy), '', 'secrets');
const secret = podRequest(parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { a: 'YQ==' }, type: 'Opaque' })) as any, {
  kind: { group: '', version: 'v1', kind: 'Secret' },
  resource: { group: '', version: 'v1', resource: 'secrets' },
});

describe('a []byte field a mutation writes', () => {
  it('a JSON patch writing text that is not base64 fails to decode (500, even under Ignore)', async () => {
    const r = await evaluate(set(secretPolicy([jsonPatch('[JSONPatch{op: "add", path: "/data/b", value: "hello world"}]')], 'Ignore')), secret);
    expect(r.allowed).toBe(false);
    if (!r.allowed) expect(r.status).toMatchObject({ code: 500, message: 'Internal error occurred: illegal base64 data at input byte 5' });
  });

  it('a JSON patch writing a number names the Go type []uint8', async () => {
    const r = await evaluate(set(secretPolicy([jsonPatch('[JSONPatch{op: "add", path: "/data/b", value: 5}]')])), secret);
    expect(r.allowed).toBe(false);
    if (!r.allowed) expect(r.status.message).toBe('Internal error occurred: json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
  });

  it('an ApplyConfiguration writing it fails the mutation; under Ignore the next one applies', async () => {
    const bad = ac('Object{data: {"b": "hello world"}}');
    const denied = await evaluate(set(secretPolicy([bad])), secret);
    expect(denied.allowed).toBe(false);
    if (!denied.allowed) {
      expect(denied.status.message).toBe(
        "policy 'p' with binding 'b-p' denied request: unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 5",
      );
    }
    const ignored = await evaluate(set(secretPolicy([bad], 'Ignore'), onKind(policy('q', [ac('Object{data: {"c": "Yw=="}}')]), '', 'secrets')), secret);
    expect(ignored.allowed).toBe(true);
    if (ignored.allowed) expect(ignored.patch).toEqual([{ op: 'add', path: '/data/c', value: 'Yw==' }]);
  });

  it.each([
    ['a JSON patch', jsonPatch('[JSONPatch{op: "add", path: "/data/b", value: "YR=="}, JSONPatch{op: "add", path: "/data/c", value: "YWJj\\nZA=="}]')],
    ['an ApplyConfiguration', ac('Object{data: {"b": "YR==", "c": "YWJj\\nZA=="}}')],
  ])('%s: base64 that decodes is read back in canonical form', async (_what, mutation) => {
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"b": object.data.b, "c": object.data.c}}]');
    const r = await evaluate(set(secretPolicy([mutation, read])), secret);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { b: 'YQ==', c: 'YWJjZA==' } });
    expect(r.patch).toContainEqual({ op: 'add', path: '/data/b', value: 'YQ==' });
  });

  it('a []byte struct field (a CSR request) is checked too', async () => {
    const csr = podRequest(
      parseJson(JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c' }, spec: { request: 'YQ==', signerName: 'x/y' } })) as any,
      { kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' }, resource: { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' }, namespace: '' },
    );
    const p = onKind(policy('p', [jsonPatch('[JSONPatch{op: "replace", path: "/spec/request", value: "-----BEGIN"}]')]), 'certificates.k8s.io', 'certificatesigningrequests');
    const r = await evaluate(set(p), csr);
    expect(r.allowed).toBe(false);
    if (!r.allowed) expect(r.status.message).toBe('Internal error occurred: illegal base64 data at input byte 0');
  });
});
