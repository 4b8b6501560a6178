import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, decodePatch } from '../../src/jsonpatch/index.js';
import type { ApplyResult } from '../../src/jsonpatch/index.js';

/** A Deployment as the API server serializes it for MutatingAdmissionPolicy (spec/map.md §8.3). */
function deployment(): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { app: 'web' }, creationTimestamp: null },
    spec: {
      replicas: 1,
      strategy: {},
      template: {
        metadata: { creationTimestamp: null },
        spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }] },
      },
    },
    status: {},
  };
}

const kube = (patch: unknown, doc: JsonValue = deployment()): ApplyResult => applyJsonPatch(doc, patch, 'kubernetes');

function patched(patch: unknown, doc: JsonValue = deployment()): any {
  const r = kube(patch, doc);
  if (!r.ok) throw new Error(`expected success, got ${r.kind}: ${r.message}`);
  return r.doc;
}

function error(patch: unknown, doc: JsonValue = deployment()): string {
  const r = kube(patch, doc);
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.doc)}`);
  expect(r.kind).toBe('error');
  return r.message;
}

const names = (doc: any) => doc.spec.template.spec.containers.map((c: any) => c.name);
const C = '/spec/template/spec/containers';

describe('Kubernetes (MutatingAdmissionPolicy) flavour: evanphx v4, spec/map.md §8.3', () => {
  describe('add', () => {
    it('needs an existing parent', () => {
      expect(error([{ op: 'add', path: '/spec/selector/matchLabels/x', value: 'y' }])).toBe(
        'add operation does not apply: doc is missing path: "/spec/selector/matchLabels/x": missing value',
      );
    });

    it('sets a member, and adding an existing map replaces it entirely', () => {
      expect(patched([{ op: 'add', path: '/metadata/labels/tier', value: 'fe' }]).metadata.labels).toEqual({ app: 'web', tier: 'fe' });
      expect(patched([{ op: 'add', path: '/metadata/labels', value: { only: 'this' } }]).metadata.labels).toEqual({ only: 'this' });
    });

    it('inserts at 0..len, appends with "-", rejects an index past the end', () => {
      expect(names(patched([{ op: 'add', path: `${C}/0`, value: { name: 'x' } }]))).toEqual(['x', 'a', 'b', 'c']);
      expect(names(patched([{ op: 'add', path: `${C}/3`, value: { name: 'x' } }]))).toEqual(['a', 'b', 'c', 'x']);
      expect(names(patched([{ op: 'add', path: `${C}/-`, value: { name: 'x' } }]))).toEqual(['a', 'b', 'c', 'x']);
      expect(error([{ op: 'add', path: `${C}/4`, value: { name: 'x' } }])).toBe(
        `error in add for path: '${C}/4': Unable to access invalid index: 4: invalid index referenced`,
      );
    });

    it('accepts negative indices (-1 appends, -len-1 is the front)', () => {
      expect(names(patched([{ op: 'add', path: `${C}/-1`, value: { name: 'x' } }]))).toEqual(['a', 'b', 'c', 'x']);
      expect(names(patched([{ op: 'add', path: `${C}/-2`, value: { name: 'x' } }]))).toEqual(['a', 'b', 'x', 'c']);
      expect(names(patched([{ op: 'add', path: `${C}/-4`, value: { name: 'x' } }]))).toEqual(['x', 'a', 'b', 'c']);
      expect(error([{ op: 'add', path: `${C}/-5`, value: { name: 'x' } }])).toContain('Unable to access invalid index: -5');
    });

    it('rejects a non-index array segment with the library text', () => {
      expect(error([{ op: 'add', path: `${C}/x`, value: {} }])).toBe(
        `error in add for path: '${C}/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
      );
    });

    it('does not create parents and treats a null parent as missing', () => {
      expect(error([{ op: 'add', path: '/metadata/creationTimestamp/x', value: 1 }])).toContain('doc is missing path');
      expect(error([{ op: 'add', path: '/metadata/annotations/x', value: '1' }])).toContain('doc is missing path');
    });

    it('add "" is an error (no root replacement in v4)', () => {
      expect(error([{ op: 'add', path: '', value: {} }])).toBe('add operation does not apply: doc is missing path: "": missing value');
    });

    it('a missing value adds null, as v4 reads an absent value', () => {
      expect(patched([{ op: 'add', path: '/metadata/labels/x' }]).metadata.labels).toEqual({ app: 'web', x: null });
    });
  });

  describe('remove', () => {
    it('of a missing member is an error', () => {
      expect(error([{ op: 'remove', path: '/metadata/labels/nope' }])).toBe(
        "error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
      );
    });

    it('follows the array index rules (negative from the end, out of range is an error)', () => {
      expect(names(patched([{ op: 'remove', path: `${C}/-1` }]))).toEqual(['a', 'b']);
      expect(names(patched([{ op: 'remove', path: `${C}/0` }]))).toEqual(['b', 'c']);
      expect(error([{ op: 'remove', path: `${C}/3` }])).toBe(
        `error in remove for path: '${C}/3': Unable to access invalid index: 3: invalid index referenced`,
      );
      expect(error([{ op: 'remove', path: `${C}/-4` }])).toContain('Unable to access invalid index: -4');
    });

    it('with a missing parent is an error', () => {
      expect(error([{ op: 'remove', path: '/spec/selector/x' }])).toBe(
        'remove operation does not apply: doc is missing path: "/spec/selector/x": missing value',
      );
    });
  });

  describe('replace', () => {
    it('of a missing object member succeeds and adds it (non-RFC)', () => {
      expect(patched([{ op: 'replace', path: '/metadata/labels/new', value: 'v' }]).metadata.labels).toEqual({ app: 'web', new: 'v' });
      expect(patched([{ op: 'replace', path: '/spec/strategy/type', value: 'Recreate' }]).spec.strategy).toEqual({ type: 'Recreate' });
    });

    it('needs an existing parent', () => {
      expect(error([{ op: 'replace', path: '/spec/selector/x', value: 1 }])).toBe(
        'replace operation does not apply: doc is missing path: /spec/selector/x: missing value',
      );
    });

    it('needs an existing array index; "-" is invalid', () => {
      expect(names(patched([{ op: 'replace', path: `${C}/1`, value: { name: 'x' } }]))).toEqual(['a', 'x', 'c']);
      expect(names(patched([{ op: 'replace', path: `${C}/-1`, value: { name: 'x' } }]))).toEqual(['a', 'b', 'x']);
      expect(error([{ op: 'replace', path: `${C}/-`, value: {} }])).toBe(
        `replace operation does not apply: doc is missing key: ${C}/-: missing value`,
      );
      expect(error([{ op: 'replace', path: `${C}/3`, value: {} }])).toBe(
        `replace operation does not apply: doc is missing key: ${C}/3: missing value`,
      );
    });

    it('replace "" swaps the document for an object, never a scalar', () => {
      expect(patched([{ op: 'replace', path: '', value: { kind: 'X' } }])).toEqual({ kind: 'X' });
      expect(error([{ op: 'replace', path: '', value: 5 }])).toBe('replace operation value must be object or array');
    });
  });

  describe('move and copy', () => {
    it('need an existing from', () => {
      expect(error([{ op: 'move', from: '/spec/selector/x', path: '/spec/y' }])).toBe(
        'move operation does not apply: doc is missing from path: /spec/selector/x: missing value',
      );
      expect(error([{ op: 'move', from: '/metadata/nope', path: '/spec/y' }])).toBe(
        "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value",
      );
      expect(error([{ op: 'copy', from: `${C}/7`, path: '/spec/y' }])).toBe(
        `error in copy for from: '${C}/7': Unable to access invalid index: 7: invalid index referenced`,
      );
      expect(error([{ op: 'copy', from: '/spec/selector/x', path: '/spec/y' }])).toBe(
        'copy operation does not apply: doc is missing from path: /spec/selector/x: missing value',
      );
    });

    it('reference quirk: copy from a missing member of an existing object copies null', () => {
      expect(patched([{ op: 'copy', from: '/metadata/nope', path: '/metadata/copied' }]).metadata.copied).toBeNull();
    });

    it('follow the add rules at the destination; copy to /- appends', () => {
      const doc = patched([{ op: 'copy', from: `${C}/0`, path: `${C}/-` }]);
      expect(names(doc)).toEqual(['a', 'b', 'c', 'a']);
      const edited = patched([
        { op: 'copy', from: `${C}/0`, path: `${C}/-` },
        { op: 'replace', path: `${C}/3/name`, value: 'copy' },
      ]);
      expect(names(edited)).toEqual(['a', 'b', 'c', 'copy']);
      expect(names(patched([{ op: 'move', from: `${C}/0`, path: `${C}/-` }]))).toEqual(['b', 'c', 'a']);
      expect(patched([{ op: 'move', from: '/metadata/labels', path: '/spec/labels' }]).spec.labels).toEqual({ app: 'web' });
      expect(error([{ op: 'move', from: '/metadata/labels', path: '/spec/x/labels' }])).toBe(
        'move operation does not apply: doc is missing destination path: /spec/x/labels: missing value',
      );
      expect(error([{ op: 'copy', from: '/metadata/labels', path: `${C}/9` }])).toBe(
        `error while adding value during copy: Unable to access invalid index: 9: invalid index referenced`,
      );
    });
  });

  describe('test', () => {
    it('compares JSON values deeply', () => {
      expect(patched([{ op: 'test', path: '/metadata/labels', value: { app: 'web' } }, { op: 'add', path: '/x', value: 1 }]).x).toBe(1);
      expect(patched([{ op: 'test', path: `${C}/-1`, value: { image: 'c:1', name: 'c' } }])).toEqual(deployment());
    });

    it('a mismatch is reported as a test failure (the caller discards the patch), not an error', () => {
      const r = kube([
        { op: 'add', path: '/metadata/labels/x', value: '1' },
        { op: 'test', path: '/spec/replicas', value: 2 },
      ]);
      expect(r).toEqual({ ok: false, kind: 'test-failed', message: 'testing value /spec/replicas failed: test failed', opIndex: 1 });
    });

    it('a missing or null member equals only an operation without value', () => {
      expect(patched([{ op: 'test', path: '/metadata/nope' }])).toEqual(deployment());
      expect(patched([{ op: 'test', path: '/metadata/creationTimestamp' }])).toEqual(deployment());
      expect(kube([{ op: 'test', path: '/metadata/nope', value: '' }])).toMatchObject({ ok: false, kind: 'test-failed' });
      expect(kube([{ op: 'test', path: '/metadata/name', value: null }])).toMatchObject({ ok: false, kind: 'test-failed' });
      expect(kube([{ op: 'test', path: '/metadata/name' }])).toMatchObject({ ok: false, kind: 'test-failed' });
    });

    it('a value null is a value: it fails against a missing or null member', () => {
      // json_patch.go writes a CEL null into the operation as the raw text null; v4's test takes only an
      // absent value node (op.value().raw == nil) for Go's nil, which both read as.
      expect(kube([{ op: 'test', path: '/metadata/nope', value: null }])).toMatchObject({ ok: false, kind: 'test-failed' });
      expect(kube([{ op: 'test', path: '/metadata/creationTimestamp', value: null }])).toMatchObject({ ok: false, kind: 'test-failed' });
    });

    it('a value null equals an empty object or list (v4 decodes the text null into an empty map or slice)', () => {
      // lazyNode.equal: tryDoc/tryAry of `null` succeed with a nil map/slice, of length 0.
      expect(patched([{ op: 'test', path: '/spec/strategy', value: null }, { op: 'add', path: '/x', value: 1 }]).x).toBe(1);
      expect(patched([{ op: 'test', path: '/status', value: null }])).toEqual(deployment());
      expect(patched([{ op: 'test', path: '/l', value: null }], { l: [] })).toEqual({ l: [] });
      expect(patched([{ op: 'test', path: '', value: null }], {})).toEqual({});
      expect(kube([{ op: 'test', path: '/spec/template', value: null }])).toMatchObject({ ok: false, kind: 'test-failed' });
      expect(kube([{ op: 'test', path: '/l', value: null }], { l: [0] })).toMatchObject({ ok: false, kind: 'test-failed' });
      // Without a value there is no node to decode: v4 fails the test (`op.value() == nil`).
      expect(kube([{ op: 'test', path: '/status' }])).toMatchObject({ ok: false, kind: 'test-failed' });
      // v5 (Kyverno) checks for null first.
      expect(applyJsonPatch(deployment(), [{ op: 'test', path: '/status', value: null }], 'kyverno')).toMatchObject({ ok: false, kind: 'test-failed' });
    });

    it('a missing parent or an out-of-range index is an error, not a test failure', () => {
      expect(error([{ op: 'test', path: '/spec/selector/x', value: null }])).toBe(
        'test operation does not apply: is missing path: /spec/selector/x: missing value',
      );
      expect(error([{ op: 'test', path: `${C}/5`, value: null }])).toBe(
        `error in test for path: '${C}/5': Unable to access invalid index: 5: invalid index referenced`,
      );
    });

    it('test "" compares the whole document', () => {
      expect(patched([{ op: 'test', path: '', value: deployment() }])).toEqual(deployment());
      expect(kube([{ op: 'test', path: '', value: {} }])).toMatchObject({ ok: false, kind: 'test-failed' });
    });
  });

  describe('decoding', () => {
    it('an unknown op is "Unexpected kind: <op>"', () => {
      expect(decodePatch([{ op: 'merge', path: '/a' }], 'kubernetes')).toEqual({ ok: false, opIndex: 0, message: 'Unexpected kind: merge' });
      expect(decodePatch([{ path: '/a' }], 'kubernetes')).toEqual({ ok: false, opIndex: 0, message: 'Unexpected kind: unknown' });
      expect(error([{ op: 'add', path: '/a', value: 1 }, { op: 'Add', path: '/b', value: 1 }])).toBe('Unexpected kind: Add');
    });

    it('as in v4, a malformed op only counts once reached: an earlier failed test still wins', () => {
      expect(kube([{ op: 'test', path: '/spec/replicas', value: 9 }, { op: 'frob', path: '/a' }])).toMatchObject({
        ok: false,
        kind: 'test-failed',
        opIndex: 0,
      });
      expect(kube([{ op: 'remove', path: '/nope' }, { op: 'add', path: '/a', value: 1 }, { op: 'move', path: '/b' }])).toMatchObject({
        kind: 'error',
        opIndex: 0,
        message: expect.stringContaining('Unable to remove nonexistent key: nope'),
      });
      expect(kube([{ op: 'add', path: '/a', value: 1 }, { op: 'frob', path: '/a' }])).toEqual({
        ok: false,
        kind: 'error',
        message: 'Unexpected kind: frob',
        opIndex: 1,
      });
      // Kyverno decodes the whole patch first (v5 DecodePatch): the malformed op wins.
      expect(applyJsonPatch(deployment(), [{ op: 'test', path: '/spec/replicas', value: 9 }, { op: 'frob', path: '/a' }], 'kyverno')).toMatchObject({
        kind: 'error',
        opIndex: 1,
      });
    });

    it('a missing path or from has the v4 message of that op', () => {
      expect(decodePatch([{ op: 'add', value: 1 }], 'kubernetes')).toMatchObject({ message: 'add operation failed to decode path: missing value' });
      expect(decodePatch([{ op: 'replace', value: 1 }], 'kubernetes')).toMatchObject({
        message: 'replace operation failed to decode path: operation missing path field: missing value',
      });
      expect(decodePatch([{ op: 'move', path: '/a' }], 'kubernetes')).toMatchObject({
        message: 'move operation failed to decode from: operation, missing from field: missing value',
      });
      expect(decodePatch([{ op: 'test', path: 3 }], 'kubernetes')).toMatchObject({
        message: 'test operation failed to decode path: json: cannot unmarshal number into Go value of type string',
      });
    });
  });

  it('all or nothing: an error after edits leaves the input as it was', () => {
    const doc = deployment();
    const r = kube(
      [
        { op: 'replace', path: '/spec/replicas', value: 3 },
        { op: 'add', path: `${C}/0/env`, value: [] },
        { op: 'remove', path: '/metadata/labels/nope' },
      ],
      doc,
    );
    expect(r.ok).toBe(false);
    expect(doc).toEqual(deployment());
  });
});
