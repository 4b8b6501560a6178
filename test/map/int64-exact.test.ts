/**
 * An int64 past ±2^53 in an admitted object reads in CEL as kube-apiserver reads it (exactly, as an int),
 * also after an earlier policy's mutation copied the object holding it (JSONPatch, ApplyConfiguration),
 * and an integral float literal stays a double there too. Through the app's /mutate, from the review's
 * JSON text.
 */
import { describe, expect, it } from 'vitest';
import { addedAt, mutateWidget, widgetPolicy, type WidgetReply } from './widget-reviews.js';

const READER = widgetPolicy(
  'z-reader',
  `patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {
          "max": string(object.spec.max), "maxIsInt": string(type(object.spec.max) == int),
          "item": string(object.spec.items[size(object.spec.items) - 1]), "past": string(type(object.spec.past) == double),
          "float": string(type(object.spec.float) == double)}}]`,
);

const FIRST = {
  none: '',
  jsonPatch: widgetPolicy('a-first', `patchType: JSONPatch\n    jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/other", value: "x"}, JSONPatch{op: "add", path: "/spec/items/0", value: 0}]' }`),
  applyConfiguration: widgetPolicy('a-first', `patchType: ApplyConfiguration\n    applyConfiguration: { expression: 'Object{spec: Object.spec{other: "x"}}' }`),
};

const REVIEW = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"example.com","version":"v1","kind":"Widget"},
"resource":{"group":"example.com","version":"v1","resource":"widgets"},"operation":"CREATE","userInfo":{},"namespace":"default","name":"w",
"object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},
"spec":{"max":9223372036854775807,"items":[1,-9007199254740993],"past":9223372036854775808,"float":2.0}}}}`;

describe('an int64 past ±2^53 read by a MAP', () => {
  for (const [name, first] of Object.entries(FIRST)) {
    it(`is the API server's int64${name === 'none' ? '' : ` after a ${name} mutation of the object holding it`}`, async () => {
      const reply = await mutate(first + READER);
      expect(reply.allowed).toBe(true);
      expect(addedAt(reply, '/metadata/annotations')).toEqual({
        max: '9223372036854775807',
        maxIsInt: 'true',
        // The last item (moved to index 2 by the first policy's insert at /spec/items/0: its mark moved with it).
        item: '-9007199254740993',
        past: 'true',
        float: 'true',
      });
    });
  }

  it('overflows as in kube-apiserver', async () => {
    const reply = await mutate(widgetPolicy('p', `patchType: JSONPatch\n    jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/next", value: object.spec.max + 1}]' }`));
    expect(reply.allowed).toBe(false);
    expect(reply.status?.message).toContain('integer overflow');
  });
});

/** The reply of /mutate for REVIEW under `policies` (YAML documents). */
function mutate(policies: string): Promise<WidgetReply> {
  return mutateWidget(policies, REVIEW);
}

/**
 * What a policy writes: an ApplyConfiguration is the Object literal's Go map (int64 values, exact), merged
 * and written by the API server with every digit; a JSON patch value is converted by cel-go to a
 * structpb.Value, where an int past ±(2^53 - 1) becomes a string of its digits (Int.ConvertToNative).
 */
describe('an int64 past ±2^53 written by a MAP', () => {
  it('is written exactly by an ApplyConfiguration, and a later policy reads it exactly', async () => {
    const writer = widgetPolicy(
      'a-writer',
      `patchType: ApplyConfiguration\n    applyConfiguration: { expression: 'Object{spec: Object.spec{copy: object.spec.max, less: object.spec.max - 1, items: [object.spec.items[1] - 1], more: [object.spec.max], neg: -9007199254740995}}' }`,
    );
    const reader = widgetPolicy(
      'z-reader',
      `patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {
          "copy": string(object.spec.copy), "less": string(object.spec.less), "lessIsInt": string(type(object.spec.less) == int),
          "neg": string(object.spec.neg)}}]`,
    );
    const r = await mutate(writer + reader);
    expect(r.allowed).toBe(true);
    const text = r.patch!;
    expect(text).toContain('{"op":"add","path":"/spec/copy","value":9223372036854775807}');
    expect(text).toContain('{"op":"add","path":"/spec/less","value":9223372036854775806}');
    expect(text).toContain('{"op":"add","path":"/spec/neg","value":-9007199254740995}');
    // Lists (atomic in a deduced schema) are replaced whole; the reply diffs them item by item.
    expect(text).toContain('{"op":"replace","path":"/spec/items/0","value":-9007199254740994},{"op":"remove","path":"/spec/items/1"}');
    expect(text).toContain('{"op":"add","path":"/spec/more","value":[9223372036854775807]}');
    expect(JSON.parse(text).find((op: { path: string }) => op.path === '/metadata/annotations').value).toEqual({
      copy: '9223372036854775807',
      less: '9223372036854775806',
      lessIsInt: 'true',
      neg: '-9007199254740995',
    });
  });

  it('replaces an int64 by one that is the same double', async () => {
    const r = await mutate(widgetPolicy('a', `patchType: ApplyConfiguration\n    applyConfiguration: { expression: 'Object{spec: Object.spec{max: object.spec.max - 1}}' }`));
    expect(r.allowed).toBe(true);
    expect(r.patch).toBe('[{"op":"replace","path":"/spec/max","value":9223372036854775806}]');
  });

  it('is a string of its digits in a JSON patch value (cel-go), and a float64 inside an Object literal', async () => {
    const r = await mutate(
      widgetPolicy(
        'a',
        `patchType: JSONPatch\n    jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/copy", value: object.spec.max}, JSONPatch{op: "add", path: "/spec/list", value: [object.spec.max - 1, 9007199254740992, 9007199254740991]}, JSONPatch{op: "add", path: "/spec/obj", value: Object.spec.obj{n: 9007199254740993}}]' }`,
      ),
    );
    expect(r.allowed).toBe(true);
    expect(r.patch).toBe(
      '[{"op":"add","path":"/spec/copy","value":"9223372036854775807"},{"op":"add","path":"/spec/list","value":["9223372036854775806","9007199254740992",9007199254740991]},{"op":"add","path":"/spec/obj","value":{"n":9007199254740992}}]',
    );
  });
});
