/**
 * An ApplyConfiguration result that structured-merge-diff accepts but that does not convert back into the
 * built-in kind's Go type. kube-apiserver converts it (mutating/dispatcher.go dispatchOne → ConvertToVersion
 * → runtime.Scheme.unstructuredToTyped → apimachinery converter.go fromUnstructured) and reports
 * `unable to convert unstructured object to <gvk>: <err>` as the mutation's error: 403 Invalid under Fail,
 * the mutation dropped under Ignore (the policy's next mutation still runs). Custom resources stay unstructured and are not converted.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig as ac, policy, set } from './helpers.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', creationTimestamp: '2024-01-02T03:04:05Z' }, spec: { priority: 3, containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '500m' } } }] } };
const request = podRequest(parseJson(JSON.stringify(pod)) as any, { uid: 'u' });
const UNCONVERTIBLE = "policy 'p' with binding 'b-p' denied request: unable to convert unstructured object to /v1, Kind=Pod: ";
const container = (fields: string) => `Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", ${fields}}]}}`;

describe('an ApplyConfiguration result converted back into the Go type', () => {
  it.each([
    ['a fraction in an integer field', 'Object{spec: Object.spec{priority: 1.5}}', 'cannot convert float64 to int32'],
    ['a time that does not parse', 'Object{metadata: Object.metadata{creationTimestamp: "bad"}}', 'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'],
    ['a quantity that does not parse', container('resources: Object.spec.containers.resources{limits: {"cpu": "abc"}}'), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['a boolean for an int-or-string', container('livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: true}}'), 'json: cannot unmarshal bool into Go value of type int32'],
    ['a fraction for an int-or-string', container('livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: 8080.5}}'), 'json: cannot unmarshal number 8080.5 into Go value of type int32'],
  ])('%s: the mutation fails under Fail; under Ignore it is dropped and the next one applies', async (_what, expression, message) => {
    const denied = await evaluate(set(policy('p', [ac(expression)])), request);
    expect(denied.allowed).toBe(false);
    if (!denied.allowed) expect(denied.status).toMatchObject({ code: 403, reason: 'Invalid', message: UNCONVERTIBLE + message });
    const ignored = await evaluate(set(policy('p', [ac(expression), ac('Object{metadata: Object.metadata{labels: {"after": "yes"}}}')], 'Ignore')), request);
    expect(ignored.allowed).toBe(true);
    if (ignored.allowed) expect(ignored.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { after: 'yes' } }]);
  });

  it.each([
    ['an integral double in an integer field', 'Object{spec: Object.spec{priority: 2.0}}', [{ op: 'replace', path: '/spec/priority', value: 2 }]],
    ['a number for a quantity', container('resources: Object.spec.containers.resources{limits: {"cpu": 2}}'), [{ op: 'replace', path: '/spec/containers/0/resources/limits/cpu', value: '2' }]],
    ['an integral double for an int-or-string', container('livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: 8080.0}}'), [{ op: 'add', path: '/spec/containers/0/livenessProbe', value: { httpGet: { port: 8080 } } }]],
  ])('%s converts', async (_what, expression, patch) => {
    const r = await evaluate(set(policy('p', [ac(expression)])), request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual(patch);
  });
});
