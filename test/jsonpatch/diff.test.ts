import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, applyPatch, createPatch } from '../../src/jsonpatch/index.js';

/** The diff must apply strictly and reproduce the target exactly. */
function roundTrip(from: JsonValue, to: JsonValue) {
  const ops = createPatch(from, to);
  const r = applyPatch(from, ops, 'rfc6902');
  if (!r.ok) throw new Error(`diff did not apply: ${r.message}\n${JSON.stringify(ops)}`);
  expect(r.doc).toEqual(to);
  return ops;
}

describe('createPatch', () => {
  it('nothing changed → empty patch, also for equal but distinct objects', () => {
    const doc = { a: { b: [1, { c: 2 }] }, d: null };
    expect(createPatch(doc, doc)).toEqual([]);
    expect(createPatch(doc, structuredClone(doc))).toEqual([]);
    expect(createPatch(1, 1)).toEqual([]);
    expect(createPatch(null, null)).toEqual([]);
  });

  it('diffs nested objects member by member', () => {
    const from = { metadata: { name: 'p', labels: { app: 'a', old: 'x' } }, spec: { replicas: 1 } };
    const to = { metadata: { name: 'p', labels: { app: 'b', new: 'y' } }, spec: { replicas: 1 } };
    expect(roundTrip(from, to)).toEqual([
      { op: 'replace', path: '/metadata/labels/app', value: 'b' },
      { op: 'remove', path: '/metadata/labels/old' },
      { op: 'add', path: '/metadata/labels/new', value: 'y' },
    ]);
  });

  it('replaces a value whose type changed as a whole', () => {
    expect(roundTrip({ a: { x: 1 } }, { a: [1] })).toEqual([{ op: 'replace', path: '/a', value: [1] }]);
    expect(roundTrip({ a: [1] }, { a: { x: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { x: 1 } }]);
    expect(roundTrip({ a: null }, { a: {} })).toEqual([{ op: 'replace', path: '/a', value: {} }]);
    expect(roundTrip({ a: 1 }, { a: '1' })).toEqual([{ op: 'replace', path: '/a', value: '1' }]);
    expect(roundTrip({ a: 0 }, { a: false })).toEqual([{ op: 'replace', path: '/a', value: false }]);
    expect(roundTrip({ a: 1 }, [1])).toEqual([{ op: 'replace', path: '', value: [1] }]);
  });

  it('adds a new subtree whole', () => {
    expect(roundTrip({ spec: {} }, { spec: { tolerations: [{ key: 'k' }] } })).toEqual([
      { op: 'add', path: '/spec/tolerations', value: [{ key: 'k' }] },
    ]);
  });

  it('appends as add …/<len>', () => {
    expect(roundTrip({ l: [1, 2] }, { l: [1, 2, 3, 4] })).toEqual([
      { op: 'add', path: '/l/2', value: 3 },
      { op: 'add', path: '/l/3', value: 4 },
    ]);
  });

  it('removes in descending index order', () => {
    expect(roundTrip({ l: [1, 2, 3, 4] }, { l: [1] })).toEqual([
      { op: 'remove', path: '/l/3' },
      { op: 'remove', path: '/l/2' },
      { op: 'remove', path: '/l/1' },
    ]);
    expect(roundTrip({ l: ['a', 'b', 'c', 'd'] }, { l: ['a', 'd'] })).toEqual([
      { op: 'remove', path: '/l/2' },
      { op: 'remove', path: '/l/1' },
    ]);
  });

  it('keeps an unchanged head and tail out of a list diff (prepend, insert)', () => {
    const c = (n: string) => ({ name: n, image: n + ':1' });
    expect(roundTrip({ l: [c('a'), c('b')] }, { l: [c('x'), c('a'), c('b')] })).toEqual([{ op: 'add', path: '/l/0', value: c('x') }]);
    expect(roundTrip({ l: [1, 2, 3] }, { l: [1, 9, 8, 2, 3] })).toEqual([
      { op: 'add', path: '/l/1', value: 9 },
      { op: 'add', path: '/l/2', value: 8 },
    ]);
  });

  it('diffs changed elements in place, field by field', () => {
    const from = { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] };
    const to: JsonValue = { containers: [{ name: 'a', image: 'a:2' }, { name: 'b', image: 'b:1', args: ['x'] }] };
    expect(roundTrip(from, to)).toEqual([
      { op: 'replace', path: '/containers/0/image', value: 'a:2' },
      { op: 'add', path: '/containers/1/args', value: ['x'] },
    ]);
  });

  it('mixes pairwise diffs with extra adds or removes in the changed middle', () => {
    roundTrip({ l: [0, 1, 2, 3, 9] }, { l: [0, 5, 9] });
    roundTrip({ l: [0, 1, 9] }, { l: [0, 5, 6, 7, 9] });
    roundTrip({ l: [1, 1, 1] }, { l: [1, 1, 1, 1] });
    roundTrip({ l: [1, 1, 1, 1] }, { l: [1] });
    roundTrip({ l: [] }, { l: [[], {}, null] });
    roundTrip({ l: [[1], { a: 1 }] }, { l: [] });
  });

  it('escapes / and ~ in keys', () => {
    expect(roundTrip({ metadata: { labels: {} } }, { metadata: { labels: { 'corp.com/retention': 'd', 'a~b': 'c' } } })).toEqual([
      { op: 'add', path: '/metadata/labels/corp.com~1retention', value: 'd' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'c' },
    ]);
    roundTrip({ '': { '~1': 1, '/': 2 } }, { '': { '~1': 3 } });
  });

  it('escapes a key the same way again, and a key too long to be remembered', () => {
    const long = `${'x/'.repeat(200)}~`;
    for (let i = 0; i < 2; i++) {
      expect(createPatch({ m: {} }, { m: { 'a/b': 1, [long]: 2 } })).toEqual([
        { op: 'add', path: '/m/a~1b', value: 1 },
        { op: 'add', path: `/m/${'x~1'.repeat(200)}~0`, value: 2 },
      ]);
    }
  });

  it('keeps integers as integers and __proto__ keys as data', () => {
    const from = JSON.parse('{"spec":{"replicas":3,"m":{"__proto__":{"x":1}}}}');
    const to = JSON.parse('{"spec":{"replicas":5,"m":{"__proto__":{"x":2},"constructor":1}}}');
    const ops = roundTrip(from, to);
    expect(JSON.stringify(ops)).toBe(
      '[{"op":"replace","path":"/spec/replicas","value":5},{"op":"replace","path":"/spec/m/__proto__/x","value":2},{"op":"add","path":"/spec/m/constructor","value":1}]',
    );
  });

  it('never touches unchanged parts of an object patched by the relaxed appliers', () => {
    const from = {
      metadata: { name: 'p', managedFields: [{ manager: 'kubectl' }], annotations: null },
      spec: { containers: [{ name: 'a' }], volumes: [] },
      status: {},
    };
    const r = applyJsonPatch(
      from,
      [
        { op: 'add', path: '/metadata/annotations/a~1b', value: '1' },
        { op: 'add', path: '/spec/containers/-1', value: { name: 'side' } },
        { op: 'add', path: '/spec/tolerations/0', value: { key: 'k' } },
        { op: 'remove', path: '/spec/nothing' },
      ],
      'kyverno',
    );
    if (!r.ok) throw new Error(r.message);
    expect(roundTrip(from, r.doc)).toEqual([
      { op: 'replace', path: '/metadata/annotations', value: { 'a/b': '1' } },
      { op: 'add', path: '/spec/containers/1', value: { name: 'side' } },
      { op: 'add', path: '/spec/tolerations', value: [{ key: 'k' }] },
    ]);
  });
});
