/**
 * The schema checks between mutations (spec/map.md §8.3, §9.4) through the public API: strict decoding
 * after a JSON patch judges what the patches introduced, never what the API server sent (a newer cluster
 * may send fields our schemas do not know), and neither does the conversion of the live object for an
 * ApplyConfiguration; what an ApplyConfiguration introduced is still judged by a later JSON patch's decode,
 * and what a JSON patch introduced by a later ApplyConfiguration's live check.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/types.js';
import { evaluate, type EngineResult } from '../../src/engine/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig, jsonPatch, policy, set, type Obj } from './helpers.js';

/** A Pod as a newer API server might send it: fields our 1.37 schemas do not declare. */
function newerPod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
    spec: {
      futureSpecField: { mode: 'x' },
      containers: [
        { name: 'app', image: 'app:1', futureContainerField: ['a'] },
        { name: 'log', image: 'log:1' },
      ],
    },
  };
}

/** A CREATE of `object` (every Pod here is default/p) by alice. */
function req(object: Obj): AdmissionRequest {
  return podRequest(object, { uid: 'u1', userInfo: { username: 'alice', groups: [] } });
}

function allowed(r: EngineResult): Obj {
  expect(r.allowed, JSON.stringify(r)).toBe(true);
  if (!r.allowed) throw new Error('denied');
  return r.object as Obj;
}

function denied(r: EngineResult) {
  expect(r.allowed, JSON.stringify(r)).toBe(false);
  if (r.allowed) throw new Error('allowed');
  return r.status;
}

describe('§8.3 strict decoding judges what the patches introduced', () => {
  it('fields the API server sent never abort the request, also in list items a patch changed', async () => {
    const s = set(
      policy('a', [jsonPatch('[JSONPatch{op: "add", path: "/spec/priorityClassName", value: "high"}]')]),
      policy('b', [jsonPatch('[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "app:2"}]')]),
      policy('c', [jsonPatch('[JSONPatch{op: "add", path: "/spec/containers/0", value: {"name": "init", "image": "i"}}]')]),
    );
    const object = newerPod();
    const r = await evaluate(s, req(object));
    const out = allowed(r);
    expect(out.spec.futureSpecField).toEqual({ mode: 'x' });
    expect(out.spec.containers.map((c: Obj) => c.image)).toEqual(['i', 'app:2', 'log:1']);
    expect(out.spec.containers[1].futureContainerField).toEqual(['a']);
    expect(r.allowed && applyPatch(object, r.patch, 'rfc6902')).toMatchObject({ ok: true, doc: out });
  });

  it('an unknown field the patch adds still aborts with 500, whatever the failurePolicy', async () => {
    const s = set(policy('a', [jsonPatch('[JSONPatch{op: "add", path: "/spec/containers/1/futureContainerField", value: ["b"]}]')], 'Ignore'));
    expect(denied(await evaluate(s, req(newerPod())))).toMatchObject({
      code: 500,
      message: 'Internal error occurred: strict decoding error: unknown field "spec.containers[1].futureContainerField"',
    });
  });

  // A quantity SMD lets through: the dispatcher's conversion back into the Go type refuses it at once (it
  // used to reach the next JSON patch's strict decoding, a 500): test/map/ac-conversion.test.ts.
  it('a quantity SMD lets through fails the ApplyConfiguration that introduced it, before any later JSON patch', async () => {
    const pod = newerPod();
    delete pod.spec.futureSpecField;
    delete pod.spec.containers[0].futureContainerField;
    const s = set(
      policy('a', [applyConfig('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", resources: Object.spec.containers.resources{limits: {"memory": "lots"}}}]}}')]),
      policy('b', [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')]),
    );
    expect(denied(await evaluate(s, req(pod)))).toMatchObject({
      code: 403,
      message: "policy 'a' with binding 'b-a' denied request: unable to convert unstructured object to /v1, Kind=Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    });
  });
});

describe('§9.4 the live check judges what the mutations introduced', () => {
  const base = (): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'app:1' }] },
  });
  const label = (k: string) => applyConfig(`Object{metadata: Object.metadata{labels: {"${k}": "1"}}}`);

  it('a JSON patch between two ApplyConfigurations is checked: a null container (strict decoding lets it through) fails the second', async () => {
    const s = set(
      policy('a', [label('a')]),
      policy('b', [jsonPatch('[JSONPatch{op: "add", path: "/spec/containers/-", value: null}]')]),
      policy('c', [label('c')], 'Ignore'),
      policy('d', [jsonPatch('[JSONPatch{op: "remove", path: "/spec/containers/1"}]')]),
      policy('e', [label('e')]),
    );
    const r = await evaluate(s, req(base()));
    expect(allowed(r).metadata.labels).toEqual({ app: 'web', a: '1', e: '1' });
    expect(r.outcomes.find((o) => o.policy === 'c')?.detail).toContain(
      'failed to convert original object to typed object: .spec.containers: element 1: associative list with keys may not have a null element',
    );
  });

  it('fields the API server sent do not fail an ApplyConfiguration, before or after JSON patches', async () => {
    const s = set(
      policy('a', [label('a')]),
      policy('b', [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/b", value: "1"}]')]),
      policy('c', [applyConfig('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "app:2"}]}}')]),
    );
    const r = await evaluate(s, req(newerPod()));
    const out = allowed(r);
    expect(out.metadata.labels).toEqual({ app: 'web', a: '1', b: '1' });
    expect(out.spec.containers[0]).toEqual({ name: 'app', image: 'app:2', futureContainerField: ['a'] });
    expect(out.spec.futureSpecField).toEqual({ mode: 'x' });
    expect(r.outcomes.map((o) => o.result)).toEqual(['mutated', 'mutated', 'mutated']);
  });

  it('also when a JSON patch rebuilt the struct that holds them', async () => {
    const s = set(
      policy('a', [jsonPatch('[JSONPatch{op: "add", path: "/spec/priorityClassName", value: "high"}, JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "app:3"}]')]),
      policy('b', [label('b')]),
    );
    const out = allowed(await evaluate(s, req(newerPod())));
    expect(out.metadata.labels).toEqual({ app: 'web', b: '1' });
    expect(out.spec).toMatchObject({ priorityClassName: 'high', futureSpecField: { mode: 'x' } });
    expect(out.spec.containers[0]).toEqual({ name: 'app', image: 'app:3', futureContainerField: ['a'] });
  });

  it('an ApplyConfiguration may still not set a field our schema does not declare', async () => {
    const s = set(policy('a', [applyConfig('Object{spec: Object.spec{futureSpecField: {"mode": "y"}}}')]));
    expect(denied(await evaluate(s, req(newerPod()))).message).toContain('.spec.futureSpecField: field not declared in schema');
  });
});

describe('a JSON patch is applied operation by operation, as kube-apiserver hands it to evanphx v4', () => {
  it('a failed test before a malformed operation discards the patch without error', async () => {
    const s = set(policy('a', [jsonPatch('[JSONPatch{op: "test", path: "/metadata/name", value: "other"}, JSONPatch{op: "frob", path: "/a"}]')]));
    const r = await evaluate(s, req(newerPod()));
    expect(allowed(r).metadata.name).toBe('p');
    expect(r.allowed && r.patch).toEqual([]);
  });
  it('a malformed operation reached is an error under the failurePolicy', async () => {
    const s = set(policy('a', [jsonPatch('[JSONPatch{op: "test", path: "/metadata/name", value: "p"}, JSONPatch{op: "frob", path: "/a"}]')]));
    expect(denied(await evaluate(s, req(newerPod()))).message).toContain('JSON Patch: Unexpected kind: frob');
  });
});
