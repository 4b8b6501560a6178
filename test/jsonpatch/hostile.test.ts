import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, applyPatch, createPatch } from '../../src/jsonpatch/index.js';
import type { Flavour, Operation } from '../../src/jsonpatch/index.js';

const flavours: Flavour[] = ['rfc6902', 'kubernetes', 'kyverno'];

function apply(doc: JsonValue, patch: unknown, flavour: Flavour): any {
  const r = applyJsonPatch(doc, patch, flavour);
  if (!r.ok) throw new Error(`${flavour}: ${r.message}`);
  return r.doc;
}

function own(obj: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(obj, key)?.value;
}

describe('hostile input', () => {
  for (const flavour of flavours) {
    describe(flavour, () => {
      it('__proto__ and constructor segments are ordinary keys and pollute nothing', () => {
        const doc = JSON.parse('{"m":{"__proto__":{"a":1},"constructor":{"b":2}}}');
        const out = apply(
          doc,
          [
            { op: 'add', path: '/m/__proto__/polluted', value: 'yes' },
            { op: 'replace', path: '/m/constructor/b', value: 3 },
            { op: 'add', path: '/__proto__', value: { polluted: 'yes' } },
            { op: 'copy', from: '/m/__proto__', path: '/m/prototype' },
            { op: 'test', path: '/m/__proto__/a', value: 1 },
            { op: 'move', from: '/m/constructor', path: '/constructor' },
          ],
          flavour,
        );
        expect(own(out.m, '__proto__')).toEqual({ a: 1, polluted: 'yes' });
        expect(own(out.m, 'prototype')).toEqual({ a: 1, polluted: 'yes' });
        expect(own(out, '__proto__')).toEqual({ polluted: 'yes' });
        expect(own(out, 'constructor')).toEqual({ b: 3 });
        expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        expect(Object.getPrototypeOf(out.m)).toBe(Object.prototype);
        expect(({} as any).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty('polluted');

        const removed = apply(out, [{ op: 'remove', path: '/m/__proto__' }, { op: 'remove', path: '/__proto__' }], flavour);
        expect(Object.keys(removed.m)).toEqual(['prototype']);
        expect(Object.keys(removed)).toEqual(['m', 'constructor']);
      });

      it('inherited names (toString, constructor) are not members', () => {
        const doc = { m: { a: 1 } };
        const r = applyJsonPatch(doc, [{ op: 'remove', path: '/m/toString' }], flavour);
        if (flavour === 'kyverno') expect(r.ok).toBe(true);
        else expect(r.ok).toBe(false);
        // (v4 reads a missing member as the nil node an operation without value has; v5 as null.)
        const op = flavour === 'kubernetes' ? { op: 'test', path: '/m/constructor' } : { op: 'test', path: '/m/constructor', value: null };
        const t = applyJsonPatch(doc, [op], flavour);
        // The evanphx appliers read a missing member as null; strict RFC 6902 says it does not exist.
        expect(t.ok).toBe(flavour !== 'rfc6902');
      });

      it('huge and malformed indices are clean errors', () => {
        const doc = { list: [1, 2] };
        for (const index of ['99999999999999999999999', '9223372036854775807', '4294967296', '1e400', '-99999999999999999999']) {
          for (const op of [
            { op: 'add', path: `/list/${index}`, value: 0 },
            { op: 'replace', path: `/list/${index}`, value: 0 },
            { op: 'test', path: `/list/${index}`, value: 0 },
            { op: 'copy', from: `/list/${index}`, path: '/x' },
          ]) {
            const r = applyJsonPatch(doc, [op], flavour);
            expect(r.ok, `${flavour} ${op.op} ${index}`).toBe(false);
            expect(r.ok || r.kind).toBe('error');
          }
        }
        expect(doc).toEqual({ list: [1, 2] });
      });

      it('a path without a leading "/" never throws', () => {
        const r = applyJsonPatch({ a: { b: 1 } }, [{ op: 'replace', path: 'a/b', value: 2 }], flavour);
        if (flavour === 'rfc6902') expect(r).toMatchObject({ ok: false, message: expect.stringContaining('start with "/"') });
        // evanphx drops the first segment: `a/b` means `/b`, which v4 adds and v5 cannot find.
        if (flavour === 'kubernetes') expect(r).toEqual({ ok: true, doc: { a: { b: 1 }, b: 2 } });
        if (flavour === 'kyverno') expect(r).toMatchObject({ ok: false, message: expect.stringContaining('doc is missing key: a/b') });
      });

      it('malformed operations handed straight to applyPatch are errors, not exceptions', () => {
        const bad = [
          { op: 'add' },
          { op: 'add', path: 5, value: 1 },
          { op: 'move', path: '/a' },
          { op: 'nope', path: '/a' },
          null,
          'add',
        ] as unknown as Operation[];
        for (const op of bad) {
          const r = applyPatch({ a: 1 }, [op], flavour);
          expect(r.ok, JSON.stringify(op)).toBe(false);
        }
      });

      it('a scalar document is refused or handled, never a crash', () => {
        const r = applyJsonPatch('text', [{ op: 'add', path: '/a', value: 1 }], flavour);
        expect(r.ok).toBe(false);
      });
    });
  }

  it('Kyverno: EnsurePathExistsOnAdd cannot be made to allocate without bound', () => {
    for (const path of ['/spec/x/100000000/y', '/spec/x/9223372036854775807/y', '/spec/x/y/100001']) {
      const r = applyJsonPatch({ spec: {} }, [{ op: 'add', path, value: 1 }], 'kyverno');
      expect(r).toMatchObject({ ok: false, kind: 'error', message: expect.stringContaining('array slots with null') });
    }
    const padded = applyJsonPatch({ spec: { x: [] } }, [{ op: 'add', path: '/spec/x/20000/y', value: 1 }], 'kyverno');
    expect(padded).toMatchObject({ ok: false, message: expect.stringContaining('array slots with null') });
    const withinLimit = applyJsonPatch({ spec: {} }, [{ op: 'add', path: '/spec/x/100/y', value: 1 }], {
      engine: 'evanphx-v5',
      ensurePathExistsOnAdd: true,
      maxArrayPadding: 50,
    });
    expect(withinLimit).toMatchObject({ ok: false, message: expect.stringContaining('more than 50') });
    const outOfInt64 = applyJsonPatch({ spec: { x: [] } }, [{ op: 'add', path: '/spec/x/9223372036854775808/y', value: 1 }], 'kyverno');
    expect(outOfInt64).toMatchObject({ ok: false, message: expect.stringContaining('doc is missing path') });
  });

  it('deeply nested documents diff and apply', () => {
    let a: any = { leaf: 1 };
    let b: any = { leaf: 2 };
    for (let i = 0; i < 900; i++) {
      a = { n: a };
      b = { n: b };
    }
    const ops = createPatch(a, b);
    expect(ops).toHaveLength(1);
    expect(ops[0].path).toBe('/n'.repeat(900) + '/leaf');
    const r = applyPatch(a, ops, 'rfc6902');
    expect(r.ok && r.doc).toEqual(b);
  });
});
