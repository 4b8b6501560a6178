import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch } from '../../src/jsonpatch/index.js';
import type { ApplyResult } from '../../src/jsonpatch/index.js';

/** The base document of spec/kyverno.md §5: two containers, two tolerations, labels, null annotations. */
function base(): any {
  return {
    metadata: { name: 'p', labels: { app: 'a' }, annotations: null },
    spec: {
      containers: [
        { name: 'c0', image: 'nginx' },
        { name: 'c1', image: 'busybox' },
      ],
      tolerations: [
        { key: 't0', operator: 'Exists' },
        { key: 't1', operator: 'Exists' },
      ],
    },
  };
}

const kyverno = (doc: JsonValue, patch: unknown): ApplyResult => applyJsonPatch(doc, patch, 'kyverno');

function patched(patch: unknown, doc: JsonValue = base()): any {
  const result = kyverno(doc, patch);
  if (!result.ok) throw new Error(`expected success, got ${result.kind}: ${result.message}`);
  return result.doc;
}

function failure(patch: unknown, doc: JsonValue = base()): string {
  const result = kyverno(doc, patch);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.doc)}`);
  return result.message;
}

const c0 = { name: 'c0', image: 'nginx' };
const c1 = { name: 'c1', image: 'busybox' };
const x = { name: 'x' };

describe('Kyverno flavour: every row of spec/kyverno.md §5', () => {
  it('add /list/- appends', () => {
    expect(patched([{ op: 'add', path: '/spec/containers/-', value: x }]).spec.containers).toEqual([c0, c1, x]);
  });

  it('add at index == len appends', () => {
    expect(patched([{ op: 'add', path: '/spec/containers/2', value: x }]).spec.containers).toEqual([c0, c1, x]);
  });

  it('add at index > len is an error', () => {
    expect(failure([{ op: 'add', path: '/spec/containers/3', value: x }])).toBe(
      "error in add for path: '/spec/containers/3': Unable to access invalid index: 3: invalid index referenced",
    );
  });

  it('add /list/-1 appends', () => {
    expect(patched([{ op: 'add', path: '/spec/containers/-1', value: x }]).spec.containers).toEqual([c0, c1, x]);
  });

  it('add /list/-2 inserts before the last element', () => {
    expect(patched([{ op: 'add', path: '/spec/containers/-2', value: x }]).spec.containers).toEqual([c0, x, c1]);
  });

  it('add /list/-(len+1) inserts at the front; anything lower is an error', () => {
    expect(patched([{ op: 'add', path: '/spec/containers/-3', value: x }]).spec.containers).toEqual([x, c0, c1]);
    expect(failure([{ op: 'add', path: '/spec/containers/-4', value: x }])).toContain('Unable to access invalid index: -4');
  });

  it('remove /list/-1 removes the last element', () => {
    expect(patched([{ op: 'remove', path: '/spec/containers/-1' }]).spec.containers).toEqual([c0]);
  });

  it('replace /list/-1 replaces the last element', () => {
    expect(patched([{ op: 'replace', path: '/spec/containers/-1', value: x }]).spec.containers).toEqual([c0, x]);
  });

  it('a negative intermediate segment addresses from the end (/list/-1/field)', () => {
    const doc = patched([{ op: 'replace', path: '/spec/containers/-1/image', value: 'alpine' }]);
    expect(doc.spec.containers).toEqual([c0, { name: 'c1', image: 'alpine' }]);
    expect(patched([{ op: 'add', path: '/spec/containers/-2/ports', value: [] }]).spec.containers[0]).toEqual({ ...c0, ports: [] });
  });

  it('remove of a missing key is a no-op', () => {
    expect(patched([{ op: 'remove', path: '/metadata/labels/nope' }])).toEqual(base());
  });

  it('remove of a missing index is a no-op (>= len and < -len)', () => {
    expect(patched([{ op: 'remove', path: '/spec/containers/2' }])).toEqual(base());
    expect(patched([{ op: 'remove', path: '/spec/containers/-3' }])).toEqual(base());
  });

  it('remove with a missing parent is a no-op', () => {
    expect(patched([{ op: 'remove', path: '/spec/volumes/0/name' }])).toEqual(base());
    expect(patched([{ op: 'remove', path: '/status/conditions/0' }])).toEqual(base());
  });

  it('add with missing parent objects creates them', () => {
    const doc = patched([{ op: 'add', path: '/spec/affinity/nodeAffinity/required', value: true }]);
    expect(doc.spec.affinity).toEqual({ nodeAffinity: { required: true } });
  });

  it('add /spec/volumes/0 without volumes creates the list', () => {
    expect(patched([{ op: 'add', path: '/spec/volumes/0', value: { name: 'v' } }]).spec.volumes).toEqual([{ name: 'v' }]);
  });

  it('add under a null parent replaces the null by an object', () => {
    expect(patched([{ op: 'add', path: '/metadata/annotations/x', value: 'y' }]).metadata.annotations).toEqual({ x: 'y' });
  });

  it('replace of a missing key is an error', () => {
    expect(failure([{ op: 'replace', path: '/metadata/labels/nope', value: 'v' }])).toBe(
      'replace operation does not apply: doc is missing key: /metadata/labels/nope: missing value',
    );
  });

  it('test of a missing path against null passes', () => {
    expect(patched([{ op: 'test', path: '/metadata/labels/nope', value: null }])).toEqual(base());
    expect(patched([{ op: 'test', path: '/metadata/annotations', value: null }])).toEqual(base());
    const r = kyverno(base(), [{ op: 'test', path: '/metadata/labels/nope', value: 'x' }]);
    expect(r).toMatchObject({ ok: false, kind: 'test-failed', message: 'testing value /metadata/labels/nope failed: test failed' });
  });

  it('move from a missing path is an error', () => {
    expect(failure([{ op: 'move', from: '/metadata/labels/nope', path: '/metadata/labels/x' }])).toBe(
      "error in move for path: 'nope': unable to get nonexistent key: nope: missing value",
    );
    expect(failure([{ op: 'move', from: '/spec/volumes/0', path: '/spec/x' }])).toBe(
      'move operation does not apply: doc is missing from path: /spec/volumes/0: missing value',
    );
  });

  it('a path without a leading "/" loses its first segment (treated as the root)', () => {
    expect(patched([{ op: 'add', path: 'spec/replicas', value: 3 }]).replicas).toBe(3);
    expect(patched([{ op: 'add', path: 'x/spec/replicas', value: 3 }]).spec.replicas).toBe(3);
    expect(failure([{ op: 'replace', path: 'spec', value: 3 }])).toBe('replace operation does not apply: doc is missing path: spec: missing value');
  });

  it('index 01 (and +1) is accepted as 1', () => {
    expect(patched([{ op: 'replace', path: '/spec/containers/01', value: x }]).spec.containers).toEqual([c0, x]);
    expect(patched([{ op: 'replace', path: '/spec/containers/+1/name', value: 'y' }]).spec.containers[1].name).toBe('y');
  });

  it('remove of the root "" is a no-op', () => {
    expect(patched([{ op: 'remove', path: '' }])).toEqual(base());
  });

  it('an unknown op or an add without value fails at decoding, before anything applies', () => {
    const doc = base();
    expect(failure([{ op: 'add', path: '/a', value: 1 }, { op: 'frobnicate', path: '/b' }], doc)).toBe(
      'invalid operation {"op":"frobnicate","path":"/b"}: unsupported operation',
    );
    expect(failure([{ op: 'add', path: '/a' }], doc)).toBe(
      `invalid operation {"op":"add","path":"/a"}: failed to decode 'value': operation, missing value field: missing value`,
    );
    expect(doc).toEqual(base());
  });

  it('a failure half-way applies nothing and leaves the input untouched', () => {
    const doc = base();
    const r = kyverno(doc, [
      { op: 'add', path: '/metadata/labels/x', value: '1' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'new' },
      { op: 'replace', path: '/spec/missing', value: 1 },
    ]);
    expect(r).toMatchObject({ ok: false, kind: 'error', opIndex: 2 });
    expect(doc).toEqual(base());
  });

  it('__proto__ segments are ordinary keys', () => {
    const doc = patched([
      { op: 'add', path: '/metadata/__proto__/polluted', value: 'yes' },
      { op: 'add', path: '/metadata/labels/__proto__', value: 'v' },
      { op: 'add', path: '/constructor/prototype/polluted', value: 'yes' },
    ]);
    expect(Object.keys(doc.metadata)).toContain('__proto__');
    expect(Object.getOwnPropertyDescriptor(doc.metadata, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getOwnPropertyDescriptor(doc.metadata.labels, '__proto__')?.value).toBe('v');
    expect(doc.constructor).toEqual({ prototype: { polluted: 'yes' } });
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(doc.metadata)).toBe(Object.prototype);
  });
});

describe('Kyverno flavour: the option details of spec/kyverno.md §3.2', () => {
  it('EnsurePathExistsOnAdd pads a new array with nulls up to an intermediate index', () => {
    const doc = patched([{ op: 'add', path: '/spec/containers/5/name', value: 'z' }]);
    expect(doc.spec.containers).toEqual([c0, c1, null, null, null, { name: 'z' }]);
  });

  it('a new container is an array when the next segment is an index or "-", an object otherwise', () => {
    expect(patched([{ op: 'add', path: '/spec/a/2', value: 'v' }]).spec.a).toEqual([null, null, 'v']);
    expect(patched([{ op: 'add', path: '/spec/a/-', value: 'v' }]).spec.a).toEqual(['v']);
    expect(patched([{ op: 'add', path: '/spec/a/-1', value: 'v' }]).spec.a).toEqual(['v']);
    expect(patched([{ op: 'add', path: '/spec/a/1e3', value: 'v' }]).spec.a).toEqual({ '1e3': 'v' });
    expect(patched([{ op: 'add', path: '/spec/a/b/0/c', value: 'v' }]).spec.a).toEqual({ b: [{ c: 'v' }] });
  });

  it('a negative index other than -1 cannot be created', () => {
    expect(failure([{ op: 'add', path: '/spec/a/-2', value: 'v' }])).toBe(
      'Unable to ensure path for negative index other than -1: -2: invalid index referenced',
    );
  });

  it('the last segment is not padded: add past the end of an existing array is still an error', () => {
    expect(failure([{ op: 'add', path: '/spec/tolerations/5', value: 'v' }])).toContain('Unable to access invalid index: 5');
  });

  it('only add creates parents: replace, copy and move destinations still need them', () => {
    expect(failure([{ op: 'replace', path: '/spec/a/b', value: 1 }])).toBe('replace operation does not apply: doc is missing path: /spec/a/b: missing value');
    expect(failure([{ op: 'copy', from: '/metadata/name', path: '/spec/a/b' }])).toBe(
      'copy operation does not apply: doc is missing destination path: /spec/a/b: missing value',
    );
    expect(failure([{ op: 'move', from: '/metadata/name', path: '/spec/a/b' }])).toBe(
      'move operation does not apply: doc is missing destination path: /spec/a/b: missing value',
    );
  });

  it('an intermediate scalar is an error, not overwritten', () => {
    expect(failure([{ op: 'add', path: '/metadata/name/x', value: 1 }])).toContain('invalid state detected');
  });

  it('reference quirk: a missing intermediate key written with ~1 is stored escaped, so the add fails', () => {
    expect(failure([{ op: 'add', path: '/metadata/a~1b/c', value: 1 }])).toBe(
      'add operation does not apply: doc is missing path: "/metadata/a~1b/c": missing value',
    );
    // An existing escaped intermediate and an escaped last segment work as usual.
    expect(patched([{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'n' }]).metadata.labels).toEqual({
      app: 'a',
      'app.kubernetes.io/name': 'n',
    });
  });

  it('reference quirk: a null array element on the way is not replaced, the new container goes before it', () => {
    const doc = patched([{ op: 'add', path: '/list/0/a', value: 1 }], { list: [null] });
    expect(doc.list).toEqual([{ a: 1 }, null]);
  });

  it('add "" replaces the whole document with an object or array', () => {
    expect(patched([{ op: 'add', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    expect(failure([{ op: 'add', path: '', value: 'scalar' }])).toContain('object or array');
  });

  it('move from "" is an error', () => {
    expect(failure([{ op: 'move', from: '', path: '/x' }])).toBe('unable to move entire document to another path: invalid state detected');
  });

  it('copy deep-copies: later edits of the copy do not show through the original', () => {
    const doc = patched([
      { op: 'copy', from: '/spec/containers/0', path: '/spec/containers/-' },
      { op: 'replace', path: '/spec/containers/2/name', value: 'copy' },
      { op: 'add', path: '/spec/containers/0/args', value: ['a'] },
      { op: 'copy', from: '/spec/containers/0', path: '/spec/initContainers' },
      { op: 'add', path: '/spec/initContainers/args/-', value: 'b' },
    ]);
    expect(doc.spec.containers).toEqual([{ ...c0, args: ['a'] }, c1, { name: 'copy', image: 'nginx' }]);
    expect(doc.spec.initContainers).toEqual({ ...c0, args: ['a', 'b'] });
  });

  it('copy and move of a missing source are errors (v5 reads a missing key as an error)', () => {
    expect(failure([{ op: 'copy', from: '/metadata/nope', path: '/x' }])).toBe(
      "error in copy for from: '/metadata/nope': unable to get nonexistent key: nope: missing value",
    );
    expect(failure([{ op: 'copy', from: '/nope/x', path: '/x' }])).toBe('copy operation does not apply: doc is missing from path: "/nope/x": missing value');
  });

  it('test without value compares with null; test of an out-of-range index is an error', () => {
    expect(patched([{ op: 'test', path: '/metadata/nope' }])).toEqual(base());
    expect(failure([{ op: 'test', path: '/spec/containers/9', value: null }])).toBe(
      "error in test for path: '/spec/containers/9': Unable to access invalid index: 9: invalid index referenced",
    );
  });

  it('remove with a non-integer array index is an error even with AllowMissingPathOnRemove', () => {
    expect(failure([{ op: 'remove', path: '/spec/containers/first' }])).toBe(
      `error in remove for path: '/spec/containers/first': strconv.Atoi: parsing "first": invalid syntax`,
    );
  });

  it('move within one list removes first, then inserts', () => {
    expect(patched([{ op: 'move', from: '/spec/containers/0', path: '/spec/containers/-' }]).spec.containers).toEqual([c1, c0]);
    expect(patched([{ op: 'move', from: '/spec/containers/1', path: '/spec/containers/0' }]).spec.containers).toEqual([c1, c0]);
  });
});
