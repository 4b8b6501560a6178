import { describe, expect, it } from 'vitest';
import { isFloatLiteral, parseJson } from '../../src/json/index.js';
import { applyJsonPatch, applyPatch, createPatch, decodePatch } from '../../src/jsonpatch/index.js';
import type { Flavour } from '../../src/jsonpatch/index.js';
import { deepFreeze } from '../json/helpers.js';

const flavours: Flavour[] = ['rfc6902', 'kubernetes', 'kyverno'];

function pod(): any {
  return {
    metadata: { name: 'p', labels: { app: 'a' } },
    spec: {
      containers: [
        { name: 'c0', image: 'i0', env: [{ name: 'A', value: '1' }] },
        { name: 'c1', image: 'i1' },
      ],
      volumes: [{ name: 'v' }],
    },
    status: { phase: 'Pending' },
  };
}

describe('working copy', () => {
  for (const flavour of flavours) {
    it(`${flavour}: never mutates the input (frozen input, every op kind)`, () => {
      const doc = deepFreeze(pod());
      const r = applyJsonPatch(
        doc,
        [
          { op: 'add', path: '/metadata/labels/x', value: 'y' },
          { op: 'replace', path: '/spec/containers/0/image', value: 'new' },
          { op: 'remove', path: '/spec/containers/0/env/0' },
          { op: 'add', path: '/spec/containers/1', value: { name: 'mid' } },
          { op: 'move', from: '/spec/volumes/0', path: '/spec/containers/0/vol' },
          { op: 'copy', from: '/metadata/labels', path: '/spec/labels' },
          { op: 'remove', path: '/status/phase' },
          { op: 'test', path: '/spec/containers/2/name', value: 'c1' },
        ],
        flavour,
      );
      if (!r.ok) throw new Error(r.message);
      expect(doc).toEqual(pod());
      expect(r.doc).toEqual({
        metadata: { name: 'p', labels: { app: 'a', x: 'y' } },
        spec: {
          containers: [{ name: 'c0', image: 'new', env: [], vol: { name: 'v' } }, { name: 'mid' }, { name: 'c1', image: 'i1' }],
          volumes: [],
          labels: { app: 'a', x: 'y' },
        },
        status: {},
      });
    });
  }

  it('shares the subtrees a patch does not touch', () => {
    const doc = pod();
    const r = applyJsonPatch(doc, [{ op: 'replace', path: '/spec/containers/0/image', value: 'x' }], 'kubernetes');
    if (!r.ok) throw new Error(r.message);
    const out = r.doc as any;
    expect(out).not.toBe(doc);
    expect(out.spec).not.toBe(doc.spec);
    expect(out.spec.containers[0]).not.toBe(doc.spec.containers[0]);
    expect(out.metadata).toBe(doc.metadata);
    expect(out.status).toBe(doc.status);
    expect(out.spec.volumes).toBe(doc.spec.volumes);
    expect(out.spec.containers[1]).toBe(doc.spec.containers[1]);
    expect(out.spec.containers[0].env).toBe(doc.spec.containers[0].env);
  });

  it("never edits the patch's own values when later ops write inside them", () => {
    const patch = [
      { op: 'add', path: '/metadata/annotations', value: { a: '1' } },
      { op: 'add', path: '/metadata/annotations/b', value: '2' },
      { op: 'add', path: '/spec/extra', value: [1] },
      { op: 'add', path: '/spec/extra/-', value: 2 },
    ];
    const frozen = deepFreeze(structuredClone(patch));
    for (const flavour of flavours) {
      const r = applyJsonPatch(pod(), frozen, flavour);
      expect(r.ok && (r.doc as any).metadata.annotations).toEqual({ a: '1', b: '2' });
      expect(r.ok && (r.doc as any).spec.extra).toEqual([1, 2]);
    }
    expect(frozen).toEqual(patch);
  });

  it('applying the same decoded patch twice gives equal, independent results', () => {
    const decoded = decodePatch([{ op: 'add', path: '/spec/list', value: [] }, { op: 'add', path: '/spec/list/-', value: 1 }], 'kyverno');
    if (!decoded.ok) throw new Error(decoded.message);
    const a = applyPatch(pod(), decoded.patch, 'kyverno');
    const b = applyPatch(pod(), decoded.patch, 'kyverno');
    expect(a.ok && (a.doc as any).spec.list).toEqual([1]);
    expect(b.ok && (b.doc as any).spec.list).toEqual([1]);
    expect(decoded.patch[0]).toEqual({ op: 'add', path: '/spec/list', value: [] });
  });
});

describe('int/double fidelity (float-literal marks)', () => {
  const doc = () => parseJson('{"spec":{"ratio":1.0,"count":2,"list":[1.0,2,3.0],"nested":{"w":5.0}},"other":{"x":1.0}}') as any;

  it('keeps the marks of siblings in containers the patch copies', () => {
    const r = applyJsonPatch(doc(), [{ op: 'add', path: '/spec/new', value: 1 }], 'kubernetes');
    if (!r.ok) throw new Error(r.message);
    const out = r.doc as any;
    expect(isFloatLiteral(out.spec, 'ratio')).toBe(true);
    expect(isFloatLiteral(out.spec, 'count')).toBe(false);
    expect(isFloatLiteral(out.spec, 'new')).toBe(false);
    expect(isFloatLiteral(out.spec.nested, 'w')).toBe(true);
    expect(isFloatLiteral(out.other, 'x')).toBe(true);
  });

  it('moves array marks with the elements on insert and remove', () => {
    const ins = applyJsonPatch(doc(), [{ op: 'add', path: '/spec/list/0', value: 7 }], 'rfc6902');
    const l1 = ins.ok && (ins.doc as any).spec.list;
    expect(l1).toEqual([7, 1, 2, 3]);
    expect([0, 1, 2, 3].map((i) => isFloatLiteral(l1, i))).toEqual([false, true, false, true]);
    const rem = applyJsonPatch(doc(), [{ op: 'remove', path: '/spec/list/0' }], 'rfc6902');
    const l2 = rem.ok && (rem.doc as any).spec.list;
    expect(l2).toEqual([2, 3]);
    expect([0, 1].map((i) => isFloatLiteral(l2, i))).toEqual([false, true]);
  });

  it('a value written as 1.0 in the patch stays a float; an int replacing a float is an int', () => {
    const patch = parseJson('[{"op":"add","path":"/spec/f","value":3.0},{"op":"replace","path":"/spec/ratio","value":4},{"op":"replace","path":"/spec/list/1","value":2.0}]');
    for (const flavour of flavours) {
      const r = applyJsonPatch(doc(), patch, flavour);
      if (!r.ok) throw new Error(r.message);
      const spec = (r.doc as any).spec;
      expect(isFloatLiteral(spec, 'f')).toBe(true);
      expect(isFloatLiteral(spec, 'ratio')).toBe(false);
      expect(isFloatLiteral(spec.list, 1)).toBe(true);
      expect(isFloatLiteral(spec.list, 0)).toBe(true);
    }
  });

  it('move and copy carry the mark with the number', () => {
    const r = applyJsonPatch(
      doc(),
      [
        { op: 'copy', from: '/spec/ratio', path: '/spec/r2' },
        { op: 'move', from: '/spec/nested/w', path: '/spec/w' },
      ],
      'kyverno',
    );
    if (!r.ok) throw new Error(r.message);
    const spec = (r.doc as any).spec;
    expect(isFloatLiteral(spec, 'r2')).toBe(true);
    expect(isFloatLiteral(spec, 'w')).toBe(true);
  });

  it('the diff marks a float value it adds or replaces', () => {
    const to = parseJson('{"spec":{"ratio":2.0,"count":3,"list":[1.0,2,3.0],"nested":{"w":5.0}},"other":{"x":1.0}}');
    const ops = createPatch(doc(), to);
    expect(ops).toEqual([
      { op: 'replace', path: '/spec/ratio', value: 2 },
      { op: 'replace', path: '/spec/count', value: 3 },
    ]);
    expect(isFloatLiteral(ops[0], 'value')).toBe(true);
    expect(isFloatLiteral(ops[1], 'value')).toBe(false);
  });
});
