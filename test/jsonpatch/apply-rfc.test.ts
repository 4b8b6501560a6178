import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, decodePatch } from '../../src/jsonpatch/index.js';

const rfc = (doc: JsonValue, patch: unknown) => applyJsonPatch(doc, patch, 'rfc6902');

function ok(doc: JsonValue, patch: unknown): any {
  const r = rfc(doc, patch);
  if (!r.ok) throw new Error(`${r.kind}: ${r.message}`);
  return r.doc;
}

function fails(doc: JsonValue, patch: unknown): string {
  const r = rfc(doc, patch);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.doc)}`);
  return r.message;
}

describe('strict RFC 6902', () => {
  // The examples of RFC 6902 appendix A.
  it('A.1-A.10: add, remove, replace, move, test', () => {
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ baz: 'qux', foo: 'bar' });
    expect(ok({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] });
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
    expect(ok({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] });
    expect(ok({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' });
    expect(
      ok({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]),
    ).toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
    expect(ok({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({
      foo: ['all', 'cows', 'eat', 'grass'],
    });
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    expect(ok(doc, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }])).toEqual(doc);
    expect(rfc({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }])).toMatchObject({ ok: false, kind: 'test-failed' });
    expect(ok({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }])).toEqual({ foo: 'bar', child: { grandchild: {} } });
  });

  it('A.12: adding to a nonexistent target is an error', () => {
    expect(fails({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }])).toContain('"/baz" does not exist');
  });

  it('A.14: ~ escapes; A.15: test compares by value, not text', () => {
    expect(ok({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }])).toEqual({ '/': 9, '~1': 10 });
    expect(rfc({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }])).toMatchObject({ kind: 'test-failed' });
  });

  it('A.16: add an array value; appending with "-"', () => {
    expect(ok({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).toEqual({ foo: ['bar', ['abc', 'def']] });
  });

  it('rejects what the relaxed appliers accept', () => {
    const doc = { list: [1, 2], m: { a: 1 } };
    expect(fails(doc, [{ op: 'add', path: '/list/3', value: 0 }])).toContain('out of bounds');
    expect(fails(doc, [{ op: 'add', path: '/list/-1', value: 0 }])).toContain('not an array index');
    expect(fails(doc, [{ op: 'add', path: '/list/01', value: 0 }])).toContain('not an array index');
    expect(fails(doc, [{ op: 'remove', path: '/m/b' }])).toContain('"/m/b" does not exist');
    expect(fails(doc, [{ op: 'remove', path: '/list/2' }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'replace', path: '/m/b', value: 1 }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'replace', path: '/list/-', value: 1 }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'test', path: '/m/b', value: null }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'move', from: '/m/b', path: '/x' }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'copy', from: '/list/5', path: '/x' }])).toContain('does not exist');
    expect(fails(doc, [{ op: 'add', path: 'm/b', value: 1 }])).toContain('start with "/"');
    expect(fails(doc, [{ op: 'add', path: '/m/a/b', value: 1 }])).toContain('"/m/a" is a number');
    expect(fails(doc, [{ op: 'remove', path: '' }])).toContain('root cannot be removed');
  });

  it('refuses to move a value into its own child, allows a move onto itself', () => {
    const doc = { a: { b: 1 } };
    expect(fails(doc, [{ op: 'move', from: '/a', path: '/a/b/c' }])).toContain('own child');
    expect(fails(doc, [{ op: 'move', from: '', path: '/x' }])).toContain('own child');
    expect(ok(doc, [{ op: 'move', from: '/a', path: '/a' }])).toEqual(doc);
    expect(ok(doc, [{ op: 'move', from: '/a', path: '/ab' }])).toEqual({ ab: { b: 1 } });
  });

  it('replaces or adds the whole document at ""', () => {
    expect(ok({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
    expect(ok({ a: 1 }, [{ op: 'add', path: '', value: 'x' }])).toBe('x');
  });

  it('copy puts an independent value at the target', () => {
    const doc = ok({ a: { b: [1] } }, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'add', path: '/c/b/-', value: 2 },
      { op: 'add', path: '/a/x', value: 0 },
      { op: 'copy', from: '/a', path: '/d' },
      { op: 'add', path: '/d/y', value: 3 },
    ]);
    expect(doc).toEqual({ a: { b: [1], x: 0 }, c: { b: [1, 2] }, d: { b: [1], x: 0, y: 3 } });
  });

  it('decoding needs value for add/replace/test and from for move/copy', () => {
    expect(decodePatch({ op: 'add' })).toMatchObject({ ok: false, message: expect.stringContaining('array of operations') });
    expect(decodePatch([1])).toMatchObject({ ok: false, opIndex: 0, message: 'operation 0 must be an object, got number 1' });
    expect(decodePatch([{ op: 'add', path: '/a' }])).toMatchObject({ ok: false, message: 'operation 0 (add): "value" is missing' });
    expect(decodePatch([{ op: 'replace', path: '/a' }])).toMatchObject({ ok: false });
    expect(decodePatch([{ op: 'test', path: '/a' }])).toMatchObject({ ok: false });
    expect(decodePatch([{ op: 'move', path: '/a' }])).toMatchObject({ ok: false, message: expect.stringContaining('"from"') });
    expect(decodePatch([{ op: 'copy', path: '/a', from: 1 }])).toMatchObject({ ok: false });
    expect(decodePatch([{ op: 'remove' }])).toMatchObject({ ok: false, message: expect.stringContaining('"path"') });
    expect(decodePatch([{ op: 'bogus', path: '/a' }])).toMatchObject({ ok: false, message: 'operation 0: unknown op "bogus"' });
    expect(decodePatch([{ op: 'add', path: '/a', value: null }])).toEqual({ ok: true, patch: [{ op: 'add', path: '/a', value: null }] });
    expect(decodePatch([{ op: 'remove', path: '/a', value: 1, extra: true }])).toEqual({ ok: true, patch: [{ op: 'remove', path: '/a' }] });
  });

  it('nothing is applied when decoding fails', () => {
    const doc = { a: 1 };
    const r = applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'add', path: '/c' }], 'rfc6902');
    expect(r).toMatchObject({ ok: false, kind: 'error', opIndex: 1 });
    expect(doc).toEqual({ a: 1 });
  });
});

describe('Kyverno (v5) decoding messages', () => {
  it('reports the op as JSON with the reason', () => {
    expect(decodePatch([{ op: 'move', path: '/a' }], 'kyverno')).toMatchObject({
      message: `invalid operation {"op":"move","path":"/a"}: failed to decode 'from': operation, missing from field: missing value`,
    });
    expect(decodePatch([{ op: 'remove' }], 'kyverno')).toMatchObject({
      message: `invalid operation {"op":"remove"}: failed to decode 'path': operation missing path field: missing value`,
    });
    expect(decodePatch([{ value: 1, path: '/a' }], 'kyverno')).toMatchObject({
      message: `invalid operation {"path":"/a","value":1}: unsupported operation`,
    });
    expect(decodePatch([{ op: 'add', path: '/a', value: null }], 'kyverno')).toMatchObject({ ok: true });
  });
});
